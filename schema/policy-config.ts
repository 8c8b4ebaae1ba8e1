// The `config` object of each policy type, as JSON Schemas (validated on create and update, published in
// the OpenAPI document) and the TypeScript types derived from them that the evaluator reads. `config` is
// free-form beyond the keys a type needs: unknown keys are kept. `usableConfig` gives the evaluator a stored
// config it can read, typed by its rule's type.
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import type { JsonSchema, SchemaValue } from './http/json-schema';
import { CURRENCY_CODES } from '../contracts/currencies';

export const POLICY_TYPES = [
  'allow',
  'deny',
  'budget',
  'rate-limit',
  'time-window',
  'approval-required',
] as const;
export type PolicyType = (typeof POLICY_TYPES)[number];

const BUDGET_WINDOW_NAMES = ['hour', 'day', 'week', 'month'] as const;
export const BUDGET_WINDOWS: Record<(typeof BUDGET_WINDOW_NAMES)[number], number> = {
  hour: 3_600,
  day: 86_400,
  week: 604_800,
  month: 2_592_000,
};
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

const Digits = { type: 'string', pattern: '^[0-9]{1,30}$' } as const satisfies JsonSchema;
const Clock = { type: 'string', pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$' } as const satisfies JsonSchema;

export const POLICY_CONFIG_SCHEMAS = {
  allow: {
    title: 'AllowPolicyConfig',
    type: 'object',
    properties: {},
    description:
      "No settings: the rule's `agents` and `tools` patterns are the allowlist; a match allows the call and ends evaluation. Any keys are kept.",
  },
  deny: {
    title: 'DenyPolicyConfig',
    type: 'object',
    properties: {},
    description:
      'No settings: a match denies with reason `denied_by_rule`. Any keys are kept (e.g. a `note`).',
  },
  budget: {
    title: 'BudgetPolicyConfig',
    type: 'object',
    required: ['currency', 'cap_minor', 'window'],
    description:
      "Spend cap in minor units per currency over a rolling window, counted from the ledger (debits and fees posted in the window plus open holds) for the matched agents. A spend counts for the agent it was decided as, whichever of the project's wallets paid: a session's agent for its paid tool calls, the calling agent for consumer spends (a consented pull, which holds no money, counts from its authorization on), the wallet's agent for wallet executes and card authorizations; a spend no agent made (an operator's fee) counts for its wallet's agent, or the wallet's id when it has none. Spends under one budget are decided one after another, whichever of its agents makes them, so racing spends never pass it together. Over the cap: `budget_exceeded`.",
    properties: {
      currency: { enum: [...CURRENCY_CODES] },
      cap_minor: Digits,
      window: {
        enum: [...BUDGET_WINDOW_NAMES],
        description: 'Rolling: hour 3600 s, day 86400 s, week 7 days, month 30 days.',
      },
    },
  },
  'rate-limit': {
    title: 'RateLimitPolicyConfig',
    type: 'object',
    required: ['max_calls', 'window_seconds'],
    description:
      'At most `max_calls` allowed calls per agent per rolling window of matching tools. Over: `rate_limited`.',
    properties: {
      max_calls: { type: 'integer', minimum: 1, maximum: 1_000_000 },
      window_seconds: { type: 'integer', minimum: 1, maximum: 2_592_000 },
    },
  },
  'time-window': {
    title: 'TimeWindowPolicyConfig',
    type: 'object',
    required: ['timezone', 'days', 'start', 'end'],
    description:
      'Calls are allowed on `days` between `start` (inclusive) and `end` (exclusive) local time in `timezone` (IANA); end before start spans midnight. Outside: `outside_time_window`.',
    properties: {
      timezone: { type: 'string', minLength: 1, maxLength: 64, examples: ['America/Sao_Paulo'] },
      days: { type: 'array', minItems: 1, maxItems: 7, uniqueItems: true, items: { enum: [...WEEKDAYS] } },
      start: Clock,
      end: Clock,
    },
  },
  'approval-required': {
    title: 'ApprovalRequiredPolicyConfig',
    type: 'object',
    description:
      'Holds a matching call for a human decision, optionally only above `above_minor` in `currency`. The held call answers 403 with `approval_id` and `expires_at`.',
    properties: { above_minor: Digits, currency: { enum: [...CURRENCY_CODES] } },
    dependentRequired: { above_minor: ['currency'], currency: ['above_minor'] },
  },
} as const satisfies Record<PolicyType, JsonSchema>;

/** Each type's config as its schema admits it; keys the schema does not name are kept, typed `unknown`. */
export type PolicyConfig<T extends PolicyType> = SchemaValue<(typeof POLICY_CONFIG_SCHEMAS)[T]>;
export type BudgetConfig = PolicyConfig<'budget'>;
export type RateLimitConfig = PolicyConfig<'rate-limit'>;
export type TimeWindowConfig = PolicyConfig<'time-window'>;
export type ApprovalConfig = PolicyConfig<'approval-required'>;

/** A rule's type with the config it was found usable with: switching on `type` narrows `config`. */
export type UsableConfig = { [T in PolicyType]: { type: T; config: PolicyConfig<T> } }[PolicyType];

/** IANA zone names are checked by the runtime's time-zone database, which JSON Schema cannot express. */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** Types whose config has keys the evaluator needs: a rule of these types cannot be created without a config. */
export const CONFIG_REQUIRED: readonly PolicyType[] = POLICY_TYPES.filter(
  (type) => 'required' in POLICY_CONFIG_SCHEMAS[type],
);

// Its own validator: no defaults filled and no coercion, because it judges stored rows and must not change them.
const storedAjv = new Ajv2020({ allErrors: false, strict: false });
const storedValidators: { [T in PolicyType]: ValidateFunction<PolicyConfig<T>> } = {
  allow: storedAjv.compile(POLICY_CONFIG_SCHEMAS.allow),
  deny: storedAjv.compile(POLICY_CONFIG_SCHEMAS.deny),
  budget: storedAjv.compile(POLICY_CONFIG_SCHEMAS.budget),
  'rate-limit': storedAjv.compile(POLICY_CONFIG_SCHEMAS['rate-limit']),
  'time-window': storedAjv.compile(POLICY_CONFIG_SCHEMAS['time-window']),
  'approval-required': storedAjv.compile(POLICY_CONFIG_SCHEMAS['approval-required']),
};

/**
 * A stored config the evaluator can read, typed by its rule's type; null when it cannot: the same schema
 * create and update apply, and a time zone the runtime knows. Rules written before configs were checked
 * (or straight into the table) may fail it.
 */
export function usableConfig(type: PolicyType, config: unknown): UsableConfig | null {
  switch (type) {
    case 'allow':
      return storedValidators.allow(config) ? { type, config } : null;
    case 'deny':
      return storedValidators.deny(config) ? { type, config } : null;
    case 'budget':
      return storedValidators.budget(config) ? { type, config } : null;
    case 'rate-limit':
      return storedValidators['rate-limit'](config) ? { type, config } : null;
    case 'time-window':
      return storedValidators['time-window'](config) && isTimeZone(config.timezone) ? { type, config } : null;
    case 'approval-required':
      return storedValidators['approval-required'](config) ? { type, config } : null;
  }
}
