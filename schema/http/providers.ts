// The provider catalog and verify-connection: query schema (validated) and response schemas (documented).
import { Nullable, type JsonSchema } from './json-schema';
import { AUTH_TYPES } from '../../contracts/provider-auth-types';

const Url = { type: 'string', format: 'uri' } as const satisfies JsonSchema;
export const ProviderSlug = {
  type: 'string',
  pattern: '^[a-z0-9][a-z0-9-]{1,63}$',
  description: 'The catalog slug (also the server id).',
} as const satisfies JsonSchema;

export const CatalogRow = {
  type: 'object',
  required: [
    'id',
    'name',
    'pkg',
    'category',
    'country',
    'auth_type',
    'tools_count',
    'status',
    'description',
    'sandbox_available',
    'sandbox_url',
    'provider_docs_url',
    'provider_homepage',
    'provider_logo_url',
    'provider_logo_fallback_url',
    'subaccount_provisionable',
    'engine_provisionable',
    'engine_status',
  ],
  properties: {
    id: ProviderSlug,
    name: { type: 'string' },
    pkg: { type: 'string' },
    category: { type: 'string' },
    country: { type: 'string' },
    auth_type: { enum: [...AUTH_TYPES] },
    tools_count: { type: 'integer', minimum: 0 },
    status: { type: 'string' },
    description: Nullable({ type: 'string' }),
    sandbox_available: { type: 'boolean' },
    sandbox_url: Nullable(Url),
    provider_docs_url: Url,
    provider_homepage: Url,
    provider_logo_url: Url,
    provider_logo_fallback_url: Url,
    subaccount_provisionable: { type: 'boolean' },
    engine_provisionable: {
      type: 'boolean',
      description: 'Has a provisioning descriptor and is not quarantined.',
    },
    engine_status: { enum: ['none', 'available', 'quarantined'] },
  },
} as const satisfies JsonSchema;

export const CatalogTool = {
  type: 'object',
  required: ['name', 'description', 'input_schema', 'moves_money'],
  properties: {
    name: { type: 'string' },
    description: { type: 'string' },
    input_schema: { type: 'object', description: 'JSON Schema of the tool input.' },
    moves_money: { type: 'boolean' },
  },
} as const satisfies JsonSchema;

export const CatalogServerDetail = {
  ...CatalogRow,
  required: [...CatalogRow.required, 'tools'],
  properties: {
    ...CatalogRow.properties,
    tools: { type: 'array', items: CatalogTool },
  },
} as const satisfies JsonSchema;

export const CatalogList = {
  type: 'object',
  required: ['total', 'filtered', 'servers'],
  properties: {
    total: {
      type: 'integer',
      description: "Servers the project can see: the catalog's and its own published generated providers.",
    },
    filtered: { type: 'integer', description: 'Servers matching the query.' },
    servers: { type: 'array', items: CatalogRow },
  },
} as const satisfies JsonSchema;

export const CatalogListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    category: { type: 'string', pattern: '^[a-z][a-z0-9_-]{0,39}$' },
    country: { type: 'string', pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2, upper case.' },
    q: {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      description: 'Case-insensitive text in the id, name, description, category or a tool name.',
    },
  },
} as const satisfies JsonSchema;

export const SlugParams = {
  type: 'object',
  required: ['slug'],
  properties: { slug: { type: 'string', minLength: 1, maxLength: 200 } },
} as const satisfies JsonSchema;

export const AuthSchema = {
  type: 'object',
  required: ['server_id', 'auth_type', 'environment', 'base_url', 'fields', 'oauth_authorize_url'],
  properties: {
    server_id: ProviderSlug,
    auth_type: { enum: [...AUTH_TYPES] },
    environment: { enum: ['live', 'test'] },
    base_url: { type: 'string', description: 'Empty when the catalog has no endpoint for the environment.' },
    fields: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'kind', 'label', 'header_name'],
        properties: {
          name: { type: 'string' },
          kind: {
            type: 'string',
            description:
              '`api_key`, `path_secret`, `companion_header`, `certificate`, `private_key`, `key_id`, `hmac_secret`, `client_id`, `client_secret`, `oauth_token`, `setting`.',
          },
          label: { type: 'string' },
          header_name: Nullable({ type: 'string' }),
        },
      },
    },
    oauth_authorize_url: Nullable({ type: 'string' }),
  },
} as const satisfies JsonSchema;

export const VerifyOk = {
  type: 'object',
  required: ['ok', 'provider', 'latency_ms'],
  properties: {
    ok: { const: true },
    provider: ProviderSlug,
    latency_ms: { type: 'integer', minimum: 0 },
    account: {
      type: 'object',
      required: ['id', 'name', 'extras'],
      properties: { id: { type: 'string' }, name: Nullable({ type: 'string' }), extras: { type: 'object' } },
    },
  },
} as const satisfies JsonSchema;

export const VerifyFailure = {
  type: 'object',
  required: ['ok', 'error', 'provider'],
  properties: {
    ok: { const: false },
    error: { type: 'string' },
    provider: { type: 'string' },
    detail: { type: 'string' },
    status: { type: 'integer', description: 'Present when the provider answered.' },
    hint: { type: 'string' },
    alternative: { type: 'string' },
  },
} as const satisfies JsonSchema;

export const ForeignServer = {
  type: 'object',
  required: ['error', 'server_id'],
  properties: { error: { const: 'not_found' }, server_id: { type: 'string' } },
  description: "Another project's generated provider: a bare body without `ok`.",
} as const satisfies JsonSchema;
