// Consumer payments: the spend body (execute, execute-stream, mandate spend) and the SpendOutcome answer.
import type { JsonSchema } from './json-schema';
import { BigintString, ErrorEnvelope } from './common';

const Text = (max: number): JsonSchema => ({ type: 'string', minLength: 1, maxLength: max });

/** A lower-case hex SHA-256 digest, optionally `sha256:`-prefixed (refused as `invalid_approval_hash`). */
export const APPROVAL_HASH = '^(sha256:)?[0-9a-f]{64}$';

export const SpendApproval: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['items_hash', 'batch_hash'],
  description:
    'A sealed claim by the caller (hex SHA-256 digests, optionally `sha256:`-prefixed); sealed into the receipt chain, never verified.',
  properties: {
    items_hash: { type: 'string', maxLength: 100, pattern: APPROVAL_HASH },
    batch_hash: { type: 'string', maxLength: 100, pattern: APPROVAL_HASH },
  },
};

export const SpendQuote: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    seller: Text(200),
    resource: Text(500),
    price_minor: { type: 'integer', minimum: 0 },
    payee: Text(600),
    session_id: Text(200),
    at: { type: 'string', maxLength: 64, description: 'RFC 3339 with offset, UTC years 0001-9999.' },
  },
};

export const PaymentActor: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { type: Text(64), id: Text(200), on_behalf_of: Text(200) },
};

export const TedDestination: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['bank', 'branch', 'account'],
  properties: {
    bank: { ...Text(20), description: "The receiving bank's 8-digit ISPB." },
    branch: Text(20),
    account: Text(40),
    tax_id: Text(20),
    name: Text(120),
    account_type: Text(20),
    person_type: Text(20),
    client_finality: Text(20),
  },
};

const spendProperties: Record<string, JsonSchema> = {
  signature: {
    type: 'string',
    pattern: '^[0-9a-fA-F]{64}$',
    description: 'HMAC-SHA256 over the canonical mandate (64 hex).',
  },
  agent_id: Text(200),
  amount_minor: { type: 'integer', minimum: 1, maximum: 9_007_199_254_740_991 },
  payee: {
    ...Text(600),
    description: 'Pix: a DICT key or a BR Code copy-and-paste string. TED: `ted:<ispb>:<branch>:<account>`.',
  },
  purpose: Text(64),
  attempt_id: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._:-]+$' },
  mandate: {
    description: 'The signed mandate in canonical form: the JSON object or its canonical text.',
    anyOf: [{ type: 'object' }, { type: 'string', maxLength: 65536 }],
  },
  quote: SpendQuote,
  approval: SpendApproval,
  actor: PaymentActor,
  session_id: Text(200),
  ted: TedDestination,
};

export const SpendBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['signature', 'agent_id', 'amount_minor', 'payee', 'purpose'],
  properties: spendProperties,
};

/** The spend on a registered mandate: the mandate comes from the path; its signature is still presented. */
export const MandateSpendBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['signature', 'agent_id', 'amount_minor', 'payee', 'purpose'],
  properties: Object.fromEntries(Object.entries(spendProperties).filter(([name]) => name !== 'mandate')),
};

export interface SpendBodyValues {
  signature: string;
  agent_id: string;
  amount_minor: number;
  payee: string;
  purpose: string;
  attempt_id?: string;
  mandate?: unknown;
  quote?: {
    seller?: string;
    resource?: string;
    price_minor?: number;
    payee?: string;
    session_id?: string;
    at?: string;
  };
  approval?: { items_hash: string; batch_hash: string };
  actor?: { type?: string; id?: string; on_behalf_of?: string };
  session_id?: string;
  ted?: {
    bank: string;
    branch: string;
    account: string;
    tax_id?: string;
    name?: string;
    account_type?: string;
    person_type?: string;
    client_finality?: string;
  };
}

const AuditStep: JsonSchema = {
  type: 'object',
  required: ['timestamp', 'step', 'status', 'detail'],
  properties: {
    timestamp: { type: 'string' },
    step: { type: 'string' },
    status: { enum: ['pass', 'fail', 'skip'] },
    detail: { type: 'string' },
  },
};

export const SpendOutcome: JsonSchema = {
  type: 'object',
  required: [
    'status',
    'requestId',
    'attempt_id',
    'idempotent_replay',
    'audit',
    'mandate',
    'payment',
    'wallet',
    'receipt',
  ],
  properties: {
    status: { const: 'completed' },
    requestId: { type: 'string' },
    attempt_id: { type: 'string' },
    idempotent_replay: { type: 'boolean' },
    audit: { type: 'array', items: AuditStep },
    mandate: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        consumer_id: { type: 'string' },
        spent_minor: BigintString,
        cap_minor: BigintString,
      },
    },
    payment: {
      type: 'object',
      properties: {
        rail: { enum: ['pix', 'ted'] },
        amount_minor: BigintString,
        provider_payment_id: { type: 'string' },
        end_to_end_id: { type: ['string', 'null'] },
        payee: { type: 'string' },
      },
    },
    wallet: {
      type: 'object',
      properties: {
        holdId: { type: ['string', 'null'] },
        debitId: { type: ['string', 'null'] },
        releaseId: { type: ['string', 'null'] },
        insufficientFunds: { type: 'boolean' },
      },
    },
    receipt: {
      type: ['object', 'null'],
      description: 'The sealed receipt; null when the consumer has no receipt secret.',
    },
  },
};

/** Refusals carry the audit so far and the attempt id next to the error envelope. */
export const SpendRefusal: JsonSchema = {
  allOf: [
    ErrorEnvelope,
    {
      type: 'object',
      properties: { attempt_id: { type: 'string' }, audit: { type: 'array', items: AuditStep } },
    },
  ],
};
