// Generated servers: the generate, edit and publish inputs (validated, their types derived from them) and
// the listing, detail and version shapes (documented).
import { AUTH_TYPES } from '../../contracts/provider-auth-types';
import type { JsonSchema, SchemaValue } from './json-schema';
import { Timestamp } from './common';

const Nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });

export const GeneratedServer = {
  type: 'object',
  required: ['id', 'name', 'version', 'description', 'status', 'tool_count', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    version: {
      type: 'string',
      description: 'The number of the newest published version (`0` until the first publish).',
    },
    description: { type: ['string', 'null'] },
    status: {
      enum: ['draft', 'published', 'archived'],
      description:
        '`draft` until the first publish; `published`: a provider of the project; `archived`: retired, no provider until unarchived.',
    },
    tool_count: { type: 'integer', minimum: 0, description: 'Tools exposed.' },
    created_at: Timestamp,
    updated_at: Timestamp,
  },
} as const satisfies JsonSchema;

export const GeneratedServerList = {
  type: 'object',
  required: ['servers'],
  properties: { servers: { type: 'array', items: GeneratedServer } },
} as const satisfies JsonSchema;

const BaseUrl = {
  anyOf: [
    { type: 'string', format: 'uri', pattern: '^https?://[^/?#\\s]+(/[^?#\\s]*)?$', maxLength: 2048 },
    { type: 'null' },
  ],
} as const satisfies JsonSchema;

const BaseUrls = {
  type: 'object',
  additionalProperties: false,
  properties: { live: BaseUrl, test: BaseUrl },
  description:
    'The base URL a key of each environment reaches (http or https, no query); null takes the environment away.',
} as const satisfies JsonSchema;

const ServerName = {
  type: 'string',
  minLength: 1,
  maxLength: 200,
  pattern: '^[^\\u0000-\\u001f\\u007f]+$',
} as const satisfies JsonSchema;
const Description = { type: ['string', 'null'], maxLength: 2000, pattern: '^[^\\u0000]*$' } as const;
export const TOOL_NAME = '^[a-z][a-z0-9_]{0,63}$';

export const GeneratedServerCreate = {
  type: 'object',
  additionalProperties: false,
  properties: {
    document: {
      anyOf: [
        { type: 'object', description: 'The OpenAPI 3.0 or 3.1 document as JSON.' },
        {
          type: 'string',
          minLength: 1,
          pattern: '^[^\\u0000]*$',
          description: 'The document as JSON or YAML text.',
        },
      ],
    },
    document_url: {
      type: 'string',
      format: 'uri',
      pattern: '^https?://[^\\s]+$',
      maxLength: 2048,
      description:
        'Where to fetch the document (GET, no redirects followed). A live key reaches public addresses only, as the proxy does; relative server URLs in it resolve against this URL.',
    },
    name: ServerName,
    slug: {
      type: 'string',
      pattern: '^[a-z0-9][a-z0-9-]{1,63}$',
      description:
        'The provider slug sessions and the providers routes name it by, unique across every account; generated from the name when omitted.',
    },
    description: Description,
    base_urls: BaseUrls,
    security_scheme: {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      pattern: '^[^\\u0000]*$',
      description:
        'The `securitySchemes` entry the credential answers; by default the first one the gateway can send.',
    },
  },
  oneOf: [
    { required: ['document'], not: { required: ['document_url'] } },
    { required: ['document_url'], not: { required: ['document'] } },
  ],
  examples: [
    {
      document: {
        openapi: '3.1.0',
        info: { title: 'Pet shelter', version: '1.0.0' },
        servers: [{ url: 'https://sandbox.shelter.example/v1', description: 'Sandbox' }],
        paths: {
          '/pets/{petId}': {
            get: {
              operationId: 'getPet',
              summary: 'Read one pet',
              parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'integer' } }],
              responses: { '200': { description: 'The pet' } },
            },
          },
        },
        components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } } },
        security: [{ key: [] }],
      },
    },
  ],
} as const satisfies JsonSchema;
export type GeneratedServerCreateBody = SchemaValue<typeof GeneratedServerCreate>;

export const GeneratedServerEdit = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: { name: ServerName, description: Description, base_urls: BaseUrls },
} as const satisfies JsonSchema;

export const GeneratedToolEdit = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    name: { type: 'string', pattern: TOOL_NAME, description: 'Unique within the server.' },
    description: { type: 'string', minLength: 1, maxLength: 1000, pattern: '^[^\\u0000]*$' },
    exposed: { type: 'boolean', description: 'Whether the tool is published and callable.' },
  },
} as const satisfies JsonSchema;

export const GeneratedServerParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', pattern: '^gsrv_[0-9A-Za-z]{1,64}$' } },
} as const satisfies JsonSchema;

export const GeneratedToolParams = {
  type: 'object',
  required: ['id', 'tool'],
  properties: {
    id: { type: 'string', pattern: '^gsrv_[0-9A-Za-z]{1,64}$' },
    tool: { type: 'string', pattern: TOOL_NAME },
  },
} as const satisfies JsonSchema;

export const GeneratedTool = {
  type: 'object',
  required: ['name', 'operation', 'description', 'exposed', 'input_schema'],
  properties: {
    name: { type: 'string', description: 'Sessions call it `<slug>.<name>`.' },
    operation: { type: 'string', description: 'The method and path template it calls: `GET /pet/{petId}`.' },
    description: { type: 'string' },
    exposed: { type: 'boolean' },
    input_schema: {
      type: 'object',
      description: 'JSON Schema of the arguments: the parameters, and `body`.',
    },
  },
} as const satisfies JsonSchema;

const Nullables = (names: string[]) =>
  Object.fromEntries(names.map((name) => [name, Nullable({ type: 'string' })]));

export const GeneratedServerDetail = {
  type: 'object',
  required: [
    ...GeneratedServer.required,
    'slug',
    'published_version',
    'published_at',
    'source',
    'auth',
    'base_urls',
    'verify',
    'tools',
  ],
  properties: {
    ...GeneratedServer.properties,
    slug: Nullable({ type: 'string' }),
    published_version: Nullable({ type: 'integer', minimum: 1 }),
    published_at: Nullable(Timestamp),
    source: {
      type: 'object',
      required: ['openapi', 'title', 'document_version', 'url'],
      properties: Nullables(['openapi', 'title', 'document_version', 'url']),
    },
    auth: Nullable({
      type: 'object',
      required: ['auth_type', 'schemes', 'fields'],
      properties: {
        auth_type: { enum: [...AUTH_TYPES] },
        schemes: {
          type: 'array',
          items: { type: 'string' },
          description: 'The security schemes it answers.',
        },
        fields: {
          type: 'array',
          items: {
            type: 'object',
            required: ['name', 'kind', 'label', 'header_name'],
            properties: {
              ...Nullables(['header_name']),
              name: { type: 'string' },
              kind: { type: 'string' },
              label: { type: 'string' },
            },
          },
        },
      },
    }),
    base_urls: {
      type: 'object',
      required: ['live', 'test'],
      properties: Nullables(['live', 'test']),
    },
    verify: Nullable({
      type: 'object',
      required: ['method', 'path'],
      properties: { method: { type: 'string' }, path: { type: 'string' } },
      description: 'The read verify-connection makes with the stored credential.',
    }),
    tools: { type: 'array', items: GeneratedTool },
  },
} as const satisfies JsonSchema;

export const GeneratedServerVersions = {
  type: 'object',
  required: ['versions'],
  properties: {
    versions: {
      type: 'array',
      items: {
        type: 'object',
        required: ['version', 'tool_count', 'published_at'],
        properties: {
          version: { type: 'integer', minimum: 1 },
          tool_count: { type: 'integer', minimum: 0 },
          published_at: Timestamp,
        },
      },
    },
  },
} as const satisfies JsonSchema;
