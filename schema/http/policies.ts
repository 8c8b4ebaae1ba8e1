// Policies, their reorder and evaluation log: request schemas (validated) and response schemas (documented).
import { CONFIG_REQUIRED, POLICY_CONFIG_SCHEMAS, POLICY_TYPES, type PolicyType } from '../policy-config';
import { CURRENCY_CODES } from '../../contracts/currencies';
import type { BuiltSchema, JsonSchema } from './json-schema';
import { Timestamp } from './common';

const Agents = {
  type: 'array',
  maxItems: 200,
  items: { type: 'string', minLength: 1, maxLength: 200 },
  description: 'Agent id patterns (`*`, `?` globs); empty matches every agent.',
} as const satisfies JsonSchema;
const Tools = {
  type: 'array',
  maxItems: 200,
  items: { type: 'string', minLength: 1, maxLength: 200 },
  description:
    'Tool name patterns (`*`, `?` globs); empty matches every tool. Wallet execute is the tool `wallet.execute`.',
} as const satisfies JsonSchema;

/**
 * `config` is checked against the schema of the policy's type (each titled `<Type>PolicyConfig`); keys beyond
 * those are kept. On create, a type with required keys needs its config.
 */
function configByType(create: boolean): Array<{ if: BuiltSchema; then: BuiltSchema }> {
  return POLICY_TYPES.map((type) => ({
    if: { properties: { type: { const: type } }, required: ['type'] },
    then: {
      properties: { config: POLICY_CONFIG_SCHEMAS[type] },
      ...(create && CONFIG_REQUIRED.includes(type) ? { required: ['config'] } : {}),
    },
  }));
}

const CONFIG_DESCRIPTION =
  "Settings of the rule's type, checked against that type's schema (`AllowPolicyConfig`, `DenyPolicyConfig`, `BudgetPolicyConfig`, " +
  '`RateLimitPolicyConfig`, `TimeWindowPolicyConfig`, `ApprovalRequiredPolicyConfig`); `budget`, `rate-limit` and `time-window` need theirs. ' +
  'Other keys are kept and returned.';

/** Amounts are bigint minor units: at most 9223372036854775807. */
const AmountMinor = {
  type: 'string',
  pattern: '^[0-9]{1,19}$',
  description: 'Minor units, at most 9223372036854775807.',
} as const satisfies JsonSchema;

export const Policy = {
  type: 'object',
  required: ['id', 'name', 'type', 'config', 'agents', 'tools', 'enabled', 'order', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string', pattern: '^pol_' },
    name: { type: 'string' },
    type: { enum: [...POLICY_TYPES] },
    config: { type: 'object', description: CONFIG_DESCRIPTION },
    agents: { type: 'array', items: { type: 'string' } },
    tools: { type: 'array', items: { type: 'string' } },
    enabled: { type: 'boolean' },
    order: { type: 'number', description: 'Rules run in ascending order.' },
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
} as const satisfies JsonSchema;

export const PolicyCreate = {
  type: 'object',
  required: ['name', 'type'],
  additionalProperties: false,
  description:
    'Rules run in `order`: `allow` and `deny` end evaluation on a match; `budget`, `rate-limit`, `time-window` and `approval-required` stop a call that breaks them and otherwise let evaluation continue; no deciding rule allows.',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 128 },
    type: { enum: [...POLICY_TYPES] },
    agents: { ...Agents, default: [] },
    tools: { ...Tools, default: [] },
    config: { type: 'object', default: {}, description: CONFIG_DESCRIPTION },
    enabled: { type: 'boolean', default: true },
  },
  allOf: configByType(true),
} as const satisfies JsonSchema;

export const PolicyUpdate = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 128 },
    type: { enum: [...POLICY_TYPES] },
    agents: Agents,
    tools: Tools,
    config: {
      type: 'object',
      description: `${CONFIG_DESCRIPTION} Changing \`type\` needs a config for the new type.`,
    },
    enabled: { type: 'boolean' },
  },
  allOf: configByType(false),
} as const satisfies JsonSchema;

export const PolicyReorder = {
  type: 'object',
  required: ['ids'],
  additionalProperties: false,
  properties: {
    ids: {
      type: 'array',
      minItems: 1,
      maxItems: 1000,
      uniqueItems: true,
      items: { type: 'string', minLength: 1 },
      description: 'These run first, in this order; unlisted rules keep their relative order after them.',
    },
  },
} as const satisfies JsonSchema;

export const PolicyList = {
  type: 'object',
  required: ['policies'],
  properties: { policies: { type: 'array', items: Policy } },
} as const satisfies JsonSchema;

export const PolicyEvaluation = {
  type: 'object',
  required: ['id', 'timestamp', 'agentId', 'toolName', 'ruleName', 'ruleId', 'decision', 'denialReason'],
  properties: {
    id: { type: 'string' },
    timestamp: Timestamp,
    agentId: { type: 'string' },
    toolName: { type: 'string' },
    ruleName: { type: ['string', 'null'] },
    ruleId: { type: ['string', 'null'] },
    decision: { enum: ['allow', 'deny'] },
    denialReason: {
      type: ['string', 'null'],
      description:
        '`denied_by_rule`, `budget_exceeded`, `rate_limited`, `outside_time_window`, `approval_required`, `rule_config_invalid`.',
    },
    approvalId: { type: ['string', 'null'] },
  },
} as const satisfies JsonSchema;
export const EvaluationListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    agent_id: { type: 'string', minLength: 1 },
    tool_name: { type: 'string', minLength: 1 },
    decision: { enum: ['allow', 'deny'] },
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
    before: {
      type: 'string',
      minLength: 1,
      description: 'Cursor: the last evaluation id of the previous page.',
    },
  },
} as const satisfies JsonSchema;
export const EvaluationList = {
  type: 'object',
  required: ['evaluations', 'has_more'],
  properties: {
    evaluations: { type: 'array', items: PolicyEvaluation },
    has_more: { type: 'boolean' },
    next_before: { type: ['string', 'null'] },
  },
} as const satisfies JsonSchema;

export const PolicyCheck = {
  type: 'object',
  required: ['agent_id', 'tool_name'],
  additionalProperties: false,
  properties: {
    agent_id: { type: 'string', minLength: 1, maxLength: 200 },
    tool_name: { type: 'string', minLength: 1, maxLength: 200 },
    amount_minor: AmountMinor,
    currency: { enum: [...CURRENCY_CODES] },
  },
  dependentRequired: { amount_minor: ['currency'], currency: ['amount_minor'] },
} as const satisfies JsonSchema;

export const PolicyDenial = {
  type: 'object',
  required: ['reason', 'ruleType', 'ruleId'],
  description:
    "The spec's flat policy-denial body (no `error` field); `approval_id` and `expires_at` when an approval was created.",
  properties: {
    reason: {
      enum: [
        'denied_by_rule',
        'budget_exceeded',
        'rate_limited',
        'outside_time_window',
        'approval_required',
        'rule_config_invalid',
      ],
      description:
        "`rule_config_invalid`: a matching rule's stored config cannot be read (it predates config checks); the call is denied until the rule is fixed.",
    },
    ruleType: { enum: [...POLICY_TYPES] },
    ruleId: { type: 'string' },
    ruleName: { type: 'string' },
    approval_id: { type: 'string' },
    expires_at: Timestamp,
  },
} as const satisfies JsonSchema;
