// Tool search and meta-tool discovery: request schemas (validated) and response schemas (documented).
import type { JsonSchema } from './json-schema';

export const TOOL_SEARCH_CEILING = 5;

export const ToolSearch = {
  type: 'object',
  required: ['intent'],
  additionalProperties: false,
  properties: {
    intent: {
      type: 'string',
      minLength: 1,
      maxLength: 1000,
      description: 'What the agent wants to do, in its own words.',
    },
    limit: {
      type: 'integer',
      minimum: 1,
      default: 3,
      description: `Hits wanted; a ceiling of ${TOOL_SEARCH_CEILING} applies (a larger value answers ${TOOL_SEARCH_CEILING}).`,
    },
  },
} as const satisfies JsonSchema;

export const ToolSearchResult = {
  type: 'object',
  required: ['intent', 'hits', 'elapsed_ms', 'source'],
  properties: {
    intent: { type: 'string' },
    hits: {
      type: 'array',
      items: {
        type: 'object',
        required: ['tool_name', 'confidence', 'rationale'],
        properties: {
          tool_name: { type: 'string' },
          confidence: { type: 'number', minimum: 0, maximum: 1 },
          rationale: { type: 'string' },
        },
      },
    },
    elapsed_ms: { type: 'integer' },
    source: {
      enum: ['llm', 'fallback'],
      description:
        '`llm` when the configured classifier answered; `fallback` for the lexical ranking (no classifier, or it failed).',
    },
  },
} as const satisfies JsonSchema;

export const StructuredIntent = {
  type: 'object',
  required: ['operation'],
  additionalProperties: false,
  properties: {
    operation: {
      type: 'string',
      minLength: 1,
      maxLength: 64,
      description: '`pay`, `pay_bill` or `collect`.',
    },
    amount_minor: { type: 'string', pattern: '^[0-9]{1,18}$' },
    currency: { type: 'string', pattern: '^[A-Z]{3,5}$' },
    country: { type: 'string', pattern: '^[A-Z]{2}$' },
    urgency: { enum: ['low', 'normal', 'high'] },
    recipient_kind: {
      type: 'string',
      minLength: 1,
      maxLength: 64,
      description: 'e.g. `person`, `business`, `pix_key`, `bank_account`, `wallet_address`, `bill`.',
    },
    metadata: { type: 'object' },
  },
} as const satisfies JsonSchema;

export const MetaToolDiscover = {
  type: 'object',
  required: ['intent'],
  additionalProperties: false,
  properties: {
    intent: {
      oneOf: [
        StructuredIntent,
        {
          type: 'string',
          minLength: 1,
          maxLength: 2000,
          description:
            'A free-form description, turned into the structured intent by the configured extractor.',
        },
      ],
    },
  },
} as const satisfies JsonSchema;

const Reasons = { type: 'array', items: { type: 'string' } } as const satisfies JsonSchema;
const NullableNumber = { anyOf: [{ type: 'number' }, { type: 'null' }] } as const satisfies JsonSchema;
export const MetaToolDiscovery = {
  type: 'object',
  required: ['recommended', 'alternatives', 'resolved_intent'],
  properties: {
    recommended: {
      type: 'object',
      required: ['tool', 'rail', 'provider_id', 'args_template', 'reasons'],
      properties: {
        tool: { type: 'string' },
        rail: { type: 'string' },
        provider_id: { type: 'string' },
        args_template: { type: 'object' },
        reasons: Reasons,
      },
    },
    alternatives: {
      type: 'array',
      description:
        "Score-descending, the recommended route removed. Figures come from the project's recorded tool calls; null until a route has any.",
      items: {
        type: 'object',
        required: ['tool', 'rail', 'provider_id', 'cost_minor', 'latency_p50_ms', 'success_rate', 'reasons'],
        properties: {
          tool: { type: 'string' },
          rail: { type: 'string' },
          provider_id: { type: 'string' },
          cost_minor: NullableNumber,
          latency_p50_ms: NullableNumber,
          success_rate: NullableNumber,
          reasons: Reasons,
        },
      },
    },
    resolved_intent: StructuredIntent,
  },
} as const satisfies JsonSchema;
