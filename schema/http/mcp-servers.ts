// Tenant tool servers: request schemas (validated) and response schemas (documented). Prices travel as
// decimal strings in the server's currency and are stored as bigint minor units; the rules the schema cannot
// say (decimals beyond the currency's, a tool the upstream does not list) answer their own codes.
import { CURRENCIES, CURRENCY_CODES } from '../../contracts/currencies';
import { BigintString, Timestamp } from './common';
import type { JsonSchema } from './json-schema';

const Slug: JsonSchema = {
  type: 'string',
  pattern: '^[a-z0-9][a-z0-9_-]{2,63}$',
  description:
    'Lowercase letters, digits, `_` and `-`, 3..64 characters, unique across every account: sessions name the server by it and its tools are `<slug>.<tool_name>`.',
};
const UpstreamUrl: JsonSchema = {
  type: 'string',
  format: 'uri',
  pattern: '^https?://',
  maxLength: 2048,
  description:
    "The upstream MCP server's Streamable HTTP endpoint. In live mode, hosts resolving to loopback, private or reserved addresses are refused.",
};
const UpstreamAuth: JsonSchema = {
  type: 'object',
  required: ['header', 'value'],
  additionalProperties: false,
  properties: {
    header: { type: 'string', pattern: '^[A-Za-z0-9-]{1,64}$', description: 'Header name sent upstream.' },
    value: { type: 'string', minLength: 1, maxLength: 4096, description: 'Secret; never returned.' },
  },
};
/** A decimal price's form in any currency; each currency's own decimals are stated per server below. */
export const PRICE_PATTERN = '^[0-9]{1,20}(\\.[0-9]{1,18})?$';
const Price: JsonSchema = {
  type: 'string',
  pattern: PRICE_PATTERN,
  description:
    "Decimal price per call in the server's currency (`0` is free); no more decimals than the currency has minor units.",
};
/** A price with no more significant decimals than `currency` has minor units (zeros past them are fine). */
function pricePattern(currency: keyof typeof CURRENCIES): string {
  const exponent = CURRENCIES[currency].exponent;
  return `^[0-9]{1,20}(\\.[0-9]{1,${exponent}}0{0,${18 - exponent}})?$`;
}

/** Each currency's price rule, stated for the tools of a server in it (absent, the currency is BRL). */
const PricesByCurrency: JsonSchema[] = CURRENCY_CODES.filter((code) => CURRENCIES[code].exponent < 18).map(
  (code) => ({
    if:
      code === 'BRL'
        ? { properties: { currency: { const: code } } }
        : { required: ['currency'], properties: { currency: { const: code } } },
    then: { properties: { tools: { items: { properties: { price: { pattern: pricePattern(code) } } } } } },
  }),
);

const ToolName: JsonSchema = { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' };

export const McpServerValidate: JsonSchema = {
  type: 'object',
  required: ['upstream_url'],
  additionalProperties: false,
  properties: { upstream_url: UpstreamUrl, auth: UpstreamAuth },
};
export interface McpServerValidateBody {
  upstream_url: string;
  auth?: { header: string; value: string };
}

export const McpServerCreate: JsonSchema = {
  type: 'object',
  required: ['slug', 'name', 'upstream_url', 'platform_fee_bps', 'tools'],
  additionalProperties: false,
  allOf: PricesByCurrency,
  properties: {
    slug: Slug,
    name: { type: 'string', minLength: 1, maxLength: 120 },
    description: { type: 'string', maxLength: 2000 },
    overview_md: { type: 'string', maxLength: 20000 },
    category: { type: 'string', minLength: 1, maxLength: 64 },
    upstream_url: UpstreamUrl,
    consumer_id: {
      type: 'string',
      minLength: 1,
      maxLength: 128,
      description:
        "The project's consumer the earnings belong to (recorded on the payout wallet); another project's is not found.",
    },
    upstream_auth: UpstreamAuth,
    platform_fee_bps: { type: 'integer', minimum: 0, maximum: 10000 },
    currency: {
      enum: CURRENCY_CODES,
      default: 'BRL',
      description: "The server's currency: prices, charges and earnings are in it.",
    },
    tools: {
      type: 'array',
      minItems: 1,
      maxItems: 100,
      items: {
        type: 'object',
        required: ['tool_name', 'price'],
        additionalProperties: false,
        properties: {
          tool_name: ToolName,
          description: { type: 'string', maxLength: 2000 },
          price: Price,
        },
      },
    },
  },
};
export interface McpServerCreateBody {
  slug: string;
  name: string;
  description?: string;
  overview_md?: string;
  category?: string;
  upstream_url: string;
  consumer_id?: string;
  upstream_auth?: { header: string; value: string };
  platform_fee_bps: number;
  currency?: string;
  tools: Array<{ tool_name: string; description?: string; price: string }>;
}

export const McpServerUpdate: JsonSchema = {
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 120 },
    description: { type: ['string', 'null'], maxLength: 2000 },
    overview_md: { type: ['string', 'null'], maxLength: 20000 },
    category: { type: ['string', 'null'], minLength: 1, maxLength: 64 },
    active: { type: 'boolean' },
  },
};
export interface McpServerUpdateBody {
  name?: string;
  description?: string | null;
  overview_md?: string | null;
  category?: string | null;
  active?: boolean;
}

export const McpToolUpdate: JsonSchema = {
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: { price: Price, active: { type: 'boolean' } },
};
export interface McpToolUpdateBody {
  price?: string;
  active?: boolean;
}

export const McpServerParams: JsonSchema = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', pattern: '^tsv_[A-Za-z0-9]{16}$' } },
};
export const McpToolParams: JsonSchema = {
  type: 'object',
  required: ['id', 'tool'],
  properties: { id: { type: 'string', pattern: '^tsv_[A-Za-z0-9]{16}$' }, tool: ToolName },
};

const HandshakeTool: JsonSchema = {
  type: 'object',
  required: ['name', 'description', 'input_schema'],
  properties: { name: { type: 'string' }, description: { type: 'string' }, input_schema: { type: 'object' } },
};
export const McpServerValidation: JsonSchema = {
  type: 'object',
  required: ['ok', 'latency_ms'],
  description:
    '`ok: true` with what the handshake found, or `ok: false` with `failure.code` (`unreachable`, `not_mcp`, `auth_refused`, `timed_out`). Nothing is stored.',
  properties: {
    ok: { type: 'boolean' },
    latency_ms: { type: 'integer' },
    protocol_version: { type: ['string', 'null'] },
    server: { type: ['object', 'null'] },
    tools: { type: 'array', items: HandshakeTool },
    failure: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { enum: ['unreachable', 'not_mcp', 'auth_refused', 'timed_out'] },
        message: { type: 'string' },
      },
    },
  },
};

const McpServerTool: JsonSchema = {
  type: 'object',
  required: ['tool_name', 'name', 'description', 'price', 'price_minor', 'active', 'input_schema'],
  properties: {
    tool_name: { type: 'string' },
    name: { type: 'string', description: 'What sessions call: `<slug>.<tool_name>`.' },
    description: { type: 'string' },
    price: { type: 'string' },
    price_minor: BigintString,
    active: { type: 'boolean' },
    input_schema: { type: 'object' },
  },
};
export const McpServer: JsonSchema = {
  type: 'object',
  required: [
    'id',
    'object',
    'slug',
    'name',
    'upstream_url',
    'currency',
    'platform_fee_bps',
    'active',
    'tools',
  ],
  properties: {
    id: { type: 'string' },
    object: { const: 'mcp_server' },
    slug: { type: 'string' },
    name: { type: 'string' },
    description: { type: ['string', 'null'] },
    overview_md: { type: ['string', 'null'] },
    category: { type: ['string', 'null'] },
    upstream_url: { type: 'string' },
    upstream_auth: {
      type: ['object', 'null'],
      description: 'The header name only; the value is sealed in the vault and never returned.',
      properties: { header: { type: 'string' } },
    },
    consumer_id: { type: ['string', 'null'] },
    currency: { type: 'string' },
    platform_fee_bps: { type: 'integer' },
    environment: { enum: ['live', 'test'] },
    active: { type: 'boolean' },
    payout_wallet_id: { type: 'string', description: "The wallet credited with the tenant's share." },
    fee_wallet_id: { type: 'string', description: 'The wallet where platform fees accrue until swept.' },
    tools: { type: 'array', items: McpServerTool },
    created_at: Timestamp,
    updated_at: Timestamp,
  },
};
export const McpServerList: JsonSchema = {
  type: 'object',
  required: ['mcp_servers'],
  properties: { mcp_servers: { type: 'array', items: McpServer } },
};
export const McpServerDeleted: JsonSchema = {
  type: 'object',
  required: ['id', 'deleted'],
  properties: { id: { type: 'string' }, deleted: { const: true } },
};
export const FeeSweep: JsonSchema = {
  type: 'object',
  required: ['moved'],
  description: 'What this sweep moved; a sweep with nothing accrued moves nothing.',
  properties: {
    moved: {
      type: 'array',
      items: {
        type: 'object',
        required: ['server_id', 'currency', 'amount_minor', 'to_wallet_id'],
        properties: {
          server_id: { type: 'string' },
          currency: { type: 'string' },
          amount_minor: BigintString,
          to_wallet_id: { type: 'string' },
        },
      },
    },
  },
};
