// Receipts: the sealed record of a settled consumer spend, its delivery and exception moves, the consumer's
// receipt secret and the published Ed25519 keys. Request schemas are validated; responses documented.
import type { JsonSchema } from './json-schema';
import { BigintString, Timestamp } from './common';

const Hex64 = { type: 'string', pattern: '^[0-9a-f]{64}$' } as const satisfies JsonSchema;

export const ReceiptPayment = {
  type: 'object',
  required: [
    'rail',
    'amount_minor',
    'amount_authorized',
    'amount_charged',
    'amount_refunded',
    'metering',
    'sandbox',
    'attempt_id',
    'money_moved',
    'at',
  ],
  properties: {
    rail: { enum: ['pix', 'ted'] },
    amount_minor: BigintString,
    amount_authorized: BigintString,
    amount_charged: BigintString,
    amount_refunded: BigintString,
    metering: {
      type: 'object',
      properties: { basis: { type: 'string' }, units: { type: 'integer' }, unit_price: BigintString },
    },
    sandbox: { type: 'boolean', description: 'True for test-mode spends: mock providers, no real money.' },
    attempt_id: { type: 'string' },
    money_moved: { type: 'boolean', description: 'The rail reported settlement.' },
    at: Timestamp,
    payee: { type: 'string' },
    provider_payment_id: { type: ['string', 'null'] },
    end_to_end_id: {
      type: ['string', 'null'],
      description: 'Pix end-to-end id (E + ISPB + timestamp + sequence).',
    },
  },
} as const satisfies JsonSchema;

export const Receipt = {
  type: 'object',
  required: [
    'receipt_id',
    'state',
    'mandate',
    'quote',
    'payment',
    'delivery',
    'chain',
    'receipt_sig',
    'receipt_sig_ed25519',
    'exceptions',
  ],
  properties: {
    receipt_id: { type: 'string', pattern: '^rcpt_[A-Za-z0-9]+$' },
    consumer_id: { type: 'string' },
    state: { enum: ['paid', 'delivered', 'exception', 'voided'] },
    mandate: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        nonce: { type: 'string' },
        scope: { type: 'string' },
        currency: { type: 'string' },
        sig: { type: 'string' },
      },
    },
    quote: {
      type: ['object', 'null'],
      description: 'Null when the spend named neither seller nor resource.',
    },
    payment: ReceiptPayment,
    actor: { type: ['object', 'null'] },
    approval: {
      type: ['object', 'null'],
      description: "The caller's sealed approval claim (items_hash, batch_hash); never verified.",
    },
    delivery: {
      type: ['object', 'null'],
      description:
        'The sealed delivery proof: result, proof, proof_hash, sealed_at, and sig_ed25519 over `receipt:v4:<chain.hash>:delivery:<proof_hash>` under kid.',
    },
    chain: {
      type: 'object',
      required: ['version', 'seq', 'prev_hash', 'approval_hash', 'body_hash', 'hash'],
      description:
        'hash = sha256(JCS({approval_hash, body_hash, prev_hash, seq, version})); body_hash = sha256(JCS(body)); approval_hash = sha256("approval:" + JCS(approval)).',
      properties: {
        version: { const: 4 },
        seq: { type: 'integer', minimum: 1 },
        prev_hash: { anyOf: [Hex64, { type: 'null' }] },
        approval_hash: { anyOf: [Hex64, { type: 'null' }] },
        body_hash: Hex64,
        hash: Hex64,
      },
    },
    body: { type: 'object', description: 'The sealed body exactly as hashed into chain.body_hash.' },
    receipt_sig: {
      ...Hex64,
      description: "HMAC-SHA256 under the consumer's receipt secret over `receipt:v4:<chain.hash>`.",
    },
    receipt_sig_ed25519: {
      type: 'string',
      description:
        'Base64url Ed25519 signature over `receipt:v4:<chain.hash>`; verify with the key `signatures.ed25519_kid` from GET /v1/receipts/signing-keys.',
    },
    signatures: {
      type: 'object',
      properties: {
        message: { type: 'string' },
        hmac_secret_version: { type: 'integer' },
        ed25519_kid: { type: 'string' },
      },
    },
    exceptions: {
      type: 'array',
      items: {
        type: 'object',
        required: ['code', 'detail', 'at'],
        properties: { code: { type: 'string' }, detail: { type: 'string' }, at: Timestamp },
      },
    },
    sealed_at: Timestamp,
    updated_at: Timestamp,
  },
} as const satisfies JsonSchema;

export const ReceiptList = {
  type: 'object',
  required: ['receipts'],
  properties: { receipts: { type: 'array', items: Receipt }, next_before_seq: { type: ['integer', 'null'] } },
} as const satisfies JsonSchema;

export const ReceiptListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
    before_seq: {
      type: 'integer',
      minimum: 1,
      description: 'Page backwards along the chain: receipts with a lower chain.seq.',
    },
  },
} as const satisfies JsonSchema;

export const DeliveryProof = {
  type: 'object',
  additionalProperties: false,
  required: ['result', 'proof'],
  properties: {
    result: {
      type: 'string',
      minLength: 1,
      maxLength: 64,
      description: 'What happened, e.g. `delivered`, `picked_up`, `service_rendered`.',
    },
    proof: {
      type: 'object',
      description: 'Evidence of delivery (carrier tracking, signed handover, service log); sealed as given.',
      maxProperties: 50,
    },
  },
} as const satisfies JsonSchema;

export const ReceiptException = {
  type: 'object',
  additionalProperties: false,
  required: ['code', 'detail'],
  properties: {
    code: {
      type: 'string',
      pattern: '^[a-z][a-z0-9_]{0,63}$',
      description: 'Stable snake_case code, e.g. `not_delivered`, `damaged`, `partial_refund`.',
    },
    detail: { type: 'string', minLength: 1, maxLength: 1000 },
  },
} as const satisfies JsonSchema;

export const ReceiptVoid = {
  type: 'object',
  additionalProperties: false,
  required: ['reason'],
  properties: { reason: { type: 'string', minLength: 1, maxLength: 1000 } },
} as const satisfies JsonSchema;

export const ReceiptSecretCreated = {
  type: 'object',
  required: ['consumer_id', 'version', 'secret', 'created_at'],
  properties: {
    consumer_id: { type: 'string' },
    version: { type: 'integer' },
    secret: {
      type: 'string',
      description: 'Shown once. HMAC key = base64url-decode of the part after `rsec_`.',
    },
    created_at: Timestamp,
  },
} as const satisfies JsonSchema;

export const SigningKeys = {
  type: 'object',
  required: ['keys'],
  description:
    'A JWKS (RFC 7517) of the Ed25519 keys (RFC 8037 OKP) that sign receipts; retired keys stay listed.',
  properties: {
    keys: {
      type: 'array',
      items: {
        type: 'object',
        required: ['kty', 'crv', 'x', 'kid', 'use', 'alg'],
        properties: {
          kty: { const: 'OKP' },
          crv: { const: 'Ed25519' },
          x: { type: 'string' },
          kid: { type: 'string' },
          use: { const: 'sig' },
          alg: { const: 'EdDSA' },
          created_at: Timestamp,
          retired_at: { anyOf: [Timestamp, { type: 'null' }] },
        },
      },
    },
  },
} as const satisfies JsonSchema;
