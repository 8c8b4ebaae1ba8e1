// Wallet execute (WalletExecute → GatewayPaymentResult) and approvals: request and response schemas.
import type { JsonSchema, SchemaValue } from './json-schema';
import { Metadata, Timestamp } from './common';
import { CurrencyCode } from './wallets';

export const WalletExecute = {
  type: 'object',
  required: ['amount', 'currency', 'recipient', 'description', 'mandate_id'],
  additionalProperties: false,
  properties: {
    amount: {
      type: 'number',
      exclusiveMinimum: 0,
      description:
        'Major units; converted exactly to minor units (more decimals than the currency has are refused).',
    },
    currency: CurrencyCode,
    target_currency: { enum: ['USD', 'EUR', 'BRL', 'MXN'] },
    preferred_method: { type: 'string', minLength: 1, maxLength: 64 },
    recipient: { type: 'string', minLength: 1, maxLength: 256 },
    description: { type: 'string', minLength: 1, maxLength: 512 },
    mandate_id: { type: 'string', minLength: 1, maxLength: 128 },
    purpose: { type: 'string', minLength: 1, maxLength: 64 },
    attempt_id: {
      type: 'string',
      minLength: 1,
      maxLength: 128,
      description:
        'Idempotency key: the same attempt_id and body return the stored result without moving money again; another body is 409 `attempt_id_conflict`.',
    },
    metadata: Metadata,
  },
} as const satisfies JsonSchema;
export type WalletExecuteBody = SchemaValue<typeof WalletExecute>;

const AuditEntry = {
  type: 'object',
  required: ['timestamp', 'step', 'status', 'detail'],
  properties: {
    timestamp: Timestamp,
    step: { enum: ['policy', 'approval', 'hold', 'dispatch', 'debit', 'release'] },
    status: { enum: ['pass', 'fail', 'skip'] },
    detail: { type: 'string' },
  },
} as const satisfies JsonSchema;
export const GatewayPaymentResult = {
  type: 'object',
  required: ['requestId', 'status', 'audit'],
  properties: {
    requestId: { type: 'string' },
    attempt_id: { type: 'string' },
    status: { enum: ['completed', 'denied', 'requires-approval', 'failed'] },
    audit: { type: 'array', items: AuditEntry },
    wallet: {
      type: 'object',
      required: ['holdId', 'debitId', 'releaseId', 'insufficientFunds'],
      properties: {
        holdId: { type: ['string', 'null'] },
        debitId: { type: ['string', 'null'] },
        releaseId: { type: ['string', 'null'] },
        insufficientFunds: { type: 'boolean' },
      },
    },
    payment: { type: 'object', properties: { provider_payment_id: { type: 'string' } } },
    failure: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } } },
  },
} as const satisfies JsonSchema;

export const Approval = {
  type: 'object',
  required: [
    'id',
    'org_id',
    'project_id',
    'agent_id',
    'session_id',
    'matched_rule_id',
    'matched_rule_name',
    'tool_name',
    'tool_input',
    'status',
    'created_at',
    'expires_at',
    'decided_at',
    'decided_by',
    'decision_reason',
    'executed_at',
    'execution_result',
  ],
  properties: {
    id: { type: 'string', pattern: '^apv_[0-9A-Za-z]{16}$' },
    org_id: { type: 'string' },
    project_id: { type: ['string', 'null'] },
    agent_id: { type: 'string' },
    session_id: { type: ['string', 'null'] },
    matched_rule_id: { type: ['string', 'null'] },
    matched_rule_name: { type: ['string', 'null'] },
    tool_name: { type: 'string' },
    tool_input: { type: 'object' },
    status: { enum: ['pending', 'approved', 'denied', 'expired', 'execution_failed'] },
    created_at: Timestamp,
    expires_at: Timestamp,
    decided_at: { type: ['string', 'null'] },
    decided_by: { type: ['string', 'null'] },
    decision_reason: { type: ['string', 'null'] },
    executed_at: { type: ['string', 'null'] },
    execution_result: { type: ['object', 'null'] },
  },
} as const satisfies JsonSchema;
export const ApprovalStatus = {
  type: 'object',
  required: [
    'approval_id',
    'approval_status',
    'tool_name',
    'created_at',
    'expires_at',
    'decided_at',
    'decided_by',
    'decision_reason',
    'executed_at',
    'execution_result',
  ],
  properties: {
    approval_id: { type: 'string' },
    approval_status: { enum: ['pending', 'approved', 'denied', 'expired', 'execution_failed'] },
    tool_name: { type: 'string' },
    created_at: Timestamp,
    expires_at: Timestamp,
    decided_at: { type: ['string', 'null'] },
    decided_by: { type: ['string', 'null'] },
    decision_reason: { type: ['string', 'null'] },
    executed_at: { type: ['string', 'null'] },
    execution_result: { type: ['object', 'null'] },
  },
} as const satisfies JsonSchema;
export const ApprovalHealth = {
  type: 'object',
  required: ['status', 'pending_count', 'oldest_pending_age_seconds', 'last_sweep_at'],
  properties: {
    status: { const: 'ok' },
    pending_count: { type: 'integer' },
    oldest_pending_age_seconds: { type: ['integer', 'null'] },
    last_sweep_at: { type: ['string', 'null'], description: 'Deployment-wide.' },
  },
} as const satisfies JsonSchema;
export const ApprovalDecide = {
  type: 'object',
  required: ['decision'],
  additionalProperties: false,
  properties: {
    decision: { enum: ['approve', 'deny'] },
    reason: { type: 'string', minLength: 1, maxLength: 512 },
  },
} as const satisfies JsonSchema;
