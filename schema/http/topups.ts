// Wallet top-ups (a Pix charge the payer pays, a USDC deposit to the wallet's address) and a USDC wallet's
// deposit address: request schemas (validated) and response schemas (documented).
import { Nullable, type JsonSchema, type SchemaValue } from './json-schema';
import { BigintString, Timestamp } from './common';

export const TopupCreate = {
  type: 'object',
  required: ['method', 'amount_minor'],
  additionalProperties: false,
  properties: {
    method: {
      enum: ['pix'],
      description:
        'How the money comes: `pix`, a dynamic charge for a BRL wallet. USDC wallets are topped up by a transfer to their deposit address.',
    },
    amount_minor: {
      type: 'string',
      pattern: '^[1-9][0-9]{0,11}$',
      description: 'The amount in minor units (centavos), as decimal digits.',
    },
    attempt_id: {
      type: 'string',
      minLength: 1,
      maxLength: 128,
      description:
        'Your key for this top-up: the same attempt_id with the same request answers the first top-up (200, `replayed: true`); with another request it is 409 `attempt_id_conflict`.',
    },
  },
} as const satisfies JsonSchema;

export type TopupCreateBody = SchemaValue<typeof TopupCreate>;

export const Topup = {
  type: 'object',
  required: ['id', 'object', 'wallet_id', 'method', 'currency', 'amount_minor', 'status', 'created_at'],
  properties: {
    id: { type: 'string', pattern: '^wtu_' },
    object: { const: 'wallet_topup' },
    wallet_id: { type: 'string' },
    method: { enum: ['pix', 'usdc'] },
    currency: { enum: ['BRL', 'USDC'] },
    amount_minor: { ...BigintString, description: 'Asked for while pending; what arrived once credited.' },
    status: {
      enum: ['pending', 'credited', 'expired', 'failed'],
      description:
        '`pending` until the payer pays; `credited` once the money arrived (one `fund` ledger entry); `expired` when the charge lapsed unpaid; `failed` when the PSP refused the charge. Nothing is credited unless `credited`.',
    },
    attempt_id: Nullable({ type: 'string' }),
    external_ref: Nullable({
      type: 'string',
      description: "The credit's ledger `external_ref`: `pix:<endToEndId>` or `usdc:<txhash>:<logIndex>`.",
    }),
    ledger_entry_id: Nullable(BigintString),
    expires_at: Nullable(Timestamp),
    credited_at: Nullable(Timestamp),
    failure_reason: Nullable({ type: 'string' }),
    created_at: Timestamp,
    replayed: { type: 'boolean', description: 'On a create: whether this attempt_id had opened it before.' },
    pix: Nullable({
      type: 'object',
      required: ['txid', 'br_code'],
      properties: {
        txid: { type: 'string' },
        br_code: Nullable({ type: 'string', description: 'The Pix copia-e-cola (EMV BR Code) to pay.' }),
        qr_svg: Nullable({
          type: 'string',
          description: 'The BR Code as an SVG QR code (on a create and a retrieve; null in lists).',
        }),
        end_to_end_id: Nullable({ type: 'string' }),
      },
    }),
    usdc: Nullable({
      type: 'object',
      required: ['network', 'tx_hash', 'log_index'],
      properties: {
        network: { type: 'string', description: 'CAIP-2 chain id, e.g. `eip155:8453`.' },
        tx_hash: { type: 'string' },
        log_index: { type: 'integer' },
        block_number: BigintString,
        from: { type: 'string' },
      },
    }),
  },
} as const satisfies JsonSchema;

export const TopupList = {
  type: 'object',
  required: ['topups', 'has_more'],
  properties: { topups: { type: 'array', items: Topup }, has_more: { type: 'boolean' } },
} as const satisfies JsonSchema;

export const TopupListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
    starting_after: {
      type: 'string',
      pattern: '^wtu_[0-9a-z]{26}$',
      description: 'Cursor: the last top-up id of the previous page.',
    },
  },
} as const satisfies JsonSchema;

export const DepositAddress = {
  type: 'object',
  required: ['object', 'wallet_id', 'currency', 'network', 'asset', 'address', 'confirmations', 'created_at'],
  properties: {
    object: { const: 'deposit_address' },
    wallet_id: { type: 'string' },
    currency: { const: 'USDC' },
    network: { type: 'string', description: 'CAIP-2 chain id the address receives on.' },
    asset: { type: 'string', description: 'The USDC token contract; transfers of other tokens are ignored.' },
    address: { type: 'string', description: 'Send USDC here; each transfer is credited once.' },
    confirmations: {
      type: 'integer',
      description: "Blocks (the transfer's own included) before a deposit is credited.",
    },
    created_at: Timestamp,
  },
} as const satisfies JsonSchema;
