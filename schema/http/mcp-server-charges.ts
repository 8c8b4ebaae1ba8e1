// The paid calls of a tenant tool server: the list its owner reads (and an operator reads across tenants),
// and the resolution of a call whose upstream answer never came. Request schemas are validated, response
// schemas documented.
import { BigintString, Timestamp } from './common';
import type { JsonSchema, SchemaValue } from './json-schema';

const ChargeId = {
  type: 'string',
  pattern: '^tch_[1-9][0-9]{0,17}$',
  description: "The charge's own id (`tch_…`).",
} as const satisfies JsonSchema;
const StatusFilter = {
  enum: ['held', 'uncertain', 'completed', 'failed'],
  description:
    '`held`: the upstream call is under way; `uncertain`: its answer never came and the price stays held until resolved; `completed`: debited; `failed`: released.',
} as const satisfies JsonSchema;
const Page = {
  limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
  starting_after: { ...ChargeId, description: 'Cursor: the last charge `id` of the previous page.' },
} as const satisfies Record<string, JsonSchema>;

export const ToolChargeListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { status: StatusFilter, ...Page },
} as const satisfies JsonSchema;

export const OperatorToolChargeListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { ...StatusFilter, default: 'uncertain' },
    org: { type: 'string', pattern: '^org_[0-9A-Za-z]{1,64}$', description: "The tenant's organization." },
    ...Page,
  },
} as const satisfies JsonSchema;

export const ToolChargeParams = {
  type: 'object',
  required: ['id', 'attempt_id'],
  properties: {
    id: { type: 'string', pattern: '^tsv_[A-Za-z0-9]{16}$' },
    attempt_id: {
      type: 'string',
      minLength: 1,
      maxLength: 128,
      description:
        "The caller's `attempt_id`, or the charge's `id` (`tch_…`), which names it alone when callers of two organizations used the same attempt id.",
    },
  },
} as const satisfies JsonSchema;
export const OperatorToolChargeParams = {
  type: 'object',
  required: ['orgId', 'id'],
  properties: { orgId: { type: 'string', pattern: '^org_[0-9A-Za-z]{1,64}$' }, id: ChargeId },
} as const satisfies JsonSchema;

export const ToolChargeResolve = {
  type: 'object',
  required: ['outcome'],
  additionalProperties: false,
  properties: {
    outcome: {
      enum: ['succeeded', 'failed'],
      description:
        "What the upstream's own records say the call did: `succeeded` debits the held price (the tenant's share and the platform fee credited), `failed` releases it.",
    },
  },
} as const satisfies JsonSchema;

export const ToolCharge = {
  type: 'object',
  required: ['id', 'object', 'attempt_id', 'server_id', 'tool', 'price', 'price_minor', 'currency', 'status'],
  properties: {
    id: ChargeId,
    object: { const: 'tool_charge' },
    attempt_id: { type: 'string', description: "The caller's attempt id." },
    server_id: { type: 'string' },
    tool: { type: 'string', description: '`<slug>.<tool_name>`, as the caller named it.' },
    price: { type: 'string', description: 'The price the call was authorized at, in the currency.' },
    price_minor: BigintString,
    currency: { type: 'string' },
    tenant_share_minor: { ...BigintString, type: ['string', 'null'] },
    fee_minor: { ...BigintString, type: ['string', 'null'] },
    caller_project_id: { type: 'string', description: 'The project that called (never its arguments).' },
    status: StatusFilter,
    resolution: {
      type: ['object', 'null'],
      description: 'Set when the call was resolved after its answer never came.',
      required: ['outcome', 'resolved_by', 'resolved_at'],
      properties: {
        outcome: { enum: ['succeeded', 'failed'] },
        resolved_by: {
          type: 'string',
          description: '`key:<id>` for the tenant, `user:<name>` for an operator.',
        },
        resolved_at: Timestamp,
      },
    },
    environment: { enum: ['live', 'test'] },
    created_at: Timestamp,
    uncertain_at: { ...Timestamp, type: ['string', 'null'] },
    settled_at: { ...Timestamp, type: ['string', 'null'] },
  },
} as const satisfies JsonSchema;
export const ToolChargeList = {
  type: 'object',
  required: ['tool_charges', 'has_more'],
  properties: { tool_charges: { type: 'array', items: ToolCharge }, has_more: { type: 'boolean' } },
} as const satisfies JsonSchema;
