// Mandates: the resource, its revoke and amend bodies, and presented-mandate verification.
import type { JsonSchema } from './json-schema';
import { Timestamp } from './common';
import { MAX_MINOR, SignedMandateDocument } from './consents';
import { ConsentRecord } from './consumers';

export const Mandate = {
  type: 'object',
  required: [
    'id',
    'status',
    'consumer_id',
    'agent_id',
    'funding_source_id',
    'revision',
    'purpose',
    'currency',
    'cap_minor',
    'per_tx_cap_minor',
    'signed_at',
    'expires_at',
    'amended_at',
    'revoked_at',
    'expired_at',
    'hmac_secret_version',
    'mandate',
    'signature',
  ],
  properties: {
    id: { type: 'string', pattern: '^mnd_' },
    status: { enum: ['active', 'revoked', 'expired'] },
    consumer_id: { type: 'string' },
    agent_id: { type: 'string' },
    funding_source_id: { type: 'string' },
    revision: { type: 'integer', description: 'Bumped by each amendment, which re-signs the mandate.' },
    purpose: { type: 'string' },
    currency: { type: 'string' },
    cap_minor: { type: 'string', pattern: '^[0-9]+$' },
    per_tx_cap_minor: { type: 'string', pattern: '^[0-9]+$' },
    signed_at: Timestamp,
    expires_at: Timestamp,
    amended_at: { anyOf: [Timestamp, { type: 'null' }] },
    revoked_at: { anyOf: [Timestamp, { type: 'null' }] },
    expired_at: { anyOf: [Timestamp, { type: 'null' }] },
    hmac_secret_version: { type: 'integer' },
    mandate: SignedMandateDocument,
    signature: { type: 'string', pattern: '^[0-9a-f]{64}$' },
  },
} as const satisfies JsonSchema;

export const MandateList = {
  type: 'object',
  required: ['mandates'],
  properties: { mandates: { type: 'array', items: Mandate } },
} as const satisfies JsonSchema;

export const MandateTransitionResult = {
  type: 'object',
  required: ['mandate', 'consent_record'],
  properties: { mandate: Mandate, consent_record: ConsentRecord },
} as const satisfies JsonSchema;

export const MandateRevoke = {
  type: 'object',
  additionalProperties: false,
  properties: { reason: { type: 'string', minLength: 1, maxLength: 500 } },
} as const satisfies JsonSchema;

const AllowlistEntry = { type: 'string', minLength: 1, maxLength: 200 } as const satisfies JsonSchema;

export const MandateAmend = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  description:
    'Narrows a mandate and re-signs it (new revision and nonce). Anything wider is refused with `invalid_transition`.',
  properties: {
    cap_minor: { type: 'integer', minimum: 1, maximum: MAX_MINOR },
    per_tx_cap_minor: { type: 'integer', minimum: 1, maximum: MAX_MINOR },
    expires_at: { ...Timestamp, description: 'Earlier than the current expiry, and in the future.' },
    merchant_allowlist: {
      type: 'array',
      items: AllowlistEntry,
      minItems: 1,
      maxItems: 100,
      uniqueItems: true,
    },
    withdrawal_allowlist: {
      type: 'array',
      items: { ...AllowlistEntry, pattern: '^[^*\\u0000]+$' },
      maxItems: 100,
      uniqueItems: true,
      description: 'An empty list removes cash-out.',
    },
    dda_allowlist: {
      type: 'array',
      items: { type: 'string', pattern: '^([0-9]{11}|[0-9]{14})$' },
      maxItems: 100,
      uniqueItems: true,
    },
    reason: { type: 'string', minLength: 1, maxLength: 500 },
  },
} as const satisfies JsonSchema;

export const MandateVerify = {
  type: 'object',
  additionalProperties: false,
  required: ['mandate', 'signature'],
  properties: {
    mandate: {
      oneOf: [{ type: 'object' }, { type: 'string', minLength: 2, maxLength: 65536 }],
      description: 'The mandate as issued (object or its canonical text).',
    },
    signature: { type: 'string', minLength: 1, maxLength: 128 },
    agent_id: { type: 'string', minLength: 1, maxLength: 128 },
  },
} as const satisfies JsonSchema;

export const MandateVerified = {
  type: 'object',
  required: [
    'valid',
    'mandate_id',
    'status',
    'revision',
    'currency',
    'cap_minor',
    'per_tx_cap_minor',
    'spent_minor',
    'available_minor',
    'expires_at',
  ],
  properties: {
    valid: { const: true },
    mandate_id: { type: 'string' },
    status: { const: 'active' },
    revision: { type: 'integer' },
    consumer_id: { type: 'string' },
    agent_id: { type: 'string' },
    currency: { type: 'string' },
    cap_minor: { type: 'string' },
    per_tx_cap_minor: { type: 'string' },
    spent_minor: { type: 'string' },
    available_minor: { type: 'string' },
    expires_at: Timestamp,
    hmac_secret_version: { type: 'integer' },
  },
} as const satisfies JsonSchema;

export const SecretRotated = {
  type: 'object',
  required: ['version', 'created_at'],
  properties: { version: { type: 'integer' }, created_at: Timestamp },
} as const satisfies JsonSchema;
