// Agent cards (`icrd_`), their mint flows (`imf_`) and authorizations: request schemas (validated) and
// response schemas (documented). A card's number and CVC appear nowhere here: only the issuer's own display
// page shows them.
import { Nullable, type JsonSchema, type SchemaValue } from './json-schema';
import { BigintString, Metadata, Timestamp } from './common';

/** Periods a spending limit sums over (UTC calendar windows). */
export const LIMIT_INTERVALS = ['daily', 'weekly', 'monthly', 'all_time'] as const;
export type LimitInterval = (typeof LIMIT_INTERVALS)[number];
export const SPENDING_LIMIT_INTERVALS = ['per_authorization', ...LIMIT_INTERVALS] as const;

export const MINT_STEPS = ['requested', 'endpoint_registered', 'card_created', 'minted', 'failed'] as const;

const MinorAmount = {
  type: 'string',
  pattern: '^[1-9][0-9]{0,14}$',
  description: 'An amount in minor units, as decimal digits.',
} as const satisfies JsonSchema;
const Mcc = {
  type: 'string',
  pattern: '^[0-9]{4}$',
  description: 'A merchant category code (ISO 18245).',
} as const satisfies JsonSchema;

export const CardId = { type: 'string', pattern: '^icrd_[0-9A-Za-z]{1,64}$' } as const satisfies JsonSchema;
export const MintFlowId = {
  type: 'string',
  pattern: '^imf_[0-9A-Za-z]{1,64}$',
} as const satisfies JsonSchema;

export const CardParams = {
  type: 'object',
  required: ['id'],
  properties: { id: CardId },
} as const satisfies JsonSchema;
export const MintFlowParams = {
  type: 'object',
  required: ['id'],
  properties: { id: MintFlowId },
} as const satisfies JsonSchema;

export const SpendingControls = {
  type: 'object',
  additionalProperties: false,
  description:
    "Checked by the gateway on every authorization, before the wallet's policies and balance. Limits count approved authorizations: held while pending, captured once closed; periods are UTC calendar days, weeks (from Monday) and months.",
  properties: {
    // `per_authorization` caps one authorization; the others what the card's authorizations add up to.
    spending_limits: {
      type: 'array',
      maxItems: 10,
      items: {
        type: 'object',
        required: ['interval', 'amount_minor'],
        additionalProperties: false,
        properties: { interval: { enum: [...SPENDING_LIMIT_INTERVALS] }, amount_minor: MinorAmount },
      },
    },
    // Absent lists allow any category or merchant.
    allowed_categories: {
      type: 'array',
      maxItems: 100,
      items: Mcc,
      description:
        'Only these merchant categories are approved; an authorization without a category is declined.',
    },
    blocked_categories: { type: 'array', maxItems: 100, items: Mcc },
    allowed_merchants: {
      type: 'array',
      maxItems: 100,
      items: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[^\\u0000]*$' },
      description: "Only these merchants (the network's merchant id) are approved.",
    },
  },
} as const satisfies JsonSchema;
/** A card's controls, as stored and shown: amounts in minor units as decimal strings. */
export type CardControls = SchemaValue<typeof SpendingControls>;

export const CardCreate = {
  type: 'object',
  required: ['wallet_id'],
  additionalProperties: false,
  properties: {
    wallet_id: {
      type: 'string',
      minLength: 1,
      maxLength: 128,
      pattern: '^[^\\u0000]*$',
      description: "The wallet the card spends from; the card takes the wallet's currency.",
    },
    mandate_id: {
      type: 'string',
      minLength: 1,
      maxLength: 128,
      pattern: '^[^\\u0000]*$',
      description:
        "A consumer's mandate the card also answers to: while it is active, unexpired, in the card's currency, and each authorization within its per-transaction cap.",
    },
    spending_controls: SpendingControls,
    expires_at: {
      type: 'string',
      format: 'date-time',
      description: 'The card authorizes nothing from then on.',
    },
    metadata: Metadata,
  },
} as const satisfies JsonSchema;
export type CardCreateBody = SchemaValue<typeof CardCreate>;

export const Card = {
  type: 'object',
  required: [
    'id',
    'object',
    'issuer',
    'card_id',
    'last4',
    'network',
    'status',
    'wallet_id',
    'currency',
    'created_at',
  ],
  properties: {
    id: { type: 'string', pattern: '^icrd_' },
    object: { const: 'card' },
    issuer: { type: 'string' },
    card_id: { type: 'string', description: "The issuer's own id of the card." },
    last4: { type: 'string', pattern: '^[0-9]{4}$' },
    network: { type: 'string' },
    exp_month: Nullable({ type: 'integer' }),
    exp_year: Nullable({ type: 'integer' }),
    status: {
      enum: ['active', 'frozen', 'closed'],
      description: '`frozen` declines every authorization until unfrozen; `closed` is final.',
    },
    wallet_id: { type: 'string' },
    mandate_id: Nullable({ type: 'string' }),
    currency: { type: 'string' },
    spending_controls: { type: 'object' },
    expires_at: Nullable(Timestamp),
    metadata: { type: 'object' },
    mint_flow_id: Nullable({ type: 'string', pattern: '^imf_' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
} as const satisfies JsonSchema;

export const CardList = {
  type: 'object',
  required: ['cards', 'next_before'],
  properties: {
    cards: { type: 'array', items: Card },
    next_before: Nullable({
      type: 'string',
      description: 'Pass as `before` for the next page; null on the last.',
    }),
  },
} as const satisfies JsonSchema;

export const CardListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    wallet_id: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[^\\u0000]*$' },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
    before: CardId,
  },
} as const satisfies JsonSchema;
export type CardListQueryValues = SchemaValue<typeof CardListQuery>;

export const CardMintFlow = {
  type: 'object',
  required: ['id', 'object', 'issuer', 'status', 'step', 'card_id', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'string', pattern: '^imf_' },
    object: { const: 'card_mint_flow' },
    issuer: { type: 'string' },
    status: { enum: ['pending', 'minted', 'failed'] },
    step: {
      enum: [...MINT_STEPS],
      description:
        'Where the flow stands: `requested`, `endpoint_registered` (the issuer knows where to ask for authorizations), `card_created` (the issuer holds the card), then `minted` (the gateway recorded it) or `failed`.',
    },
    card_id: Nullable({ type: 'string', description: 'The `icrd_` card once minted.' }),
    wallet_id: Nullable({ type: 'string' }),
    failure_reason: Nullable({
      type: 'string',
      description: '`issuer_refused:<code>` or `issuer_unavailable`.',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
} as const satisfies JsonSchema;

export const CardDisplay = {
  type: 'object',
  required: ['url', 'expires_at'],
  properties: {
    url: {
      type: 'string',
      format: 'uri',
      description:
        "The issuer's own page showing the number and CVC once; the gateway never sees, stores or logs them, nor this URL after answering.",
    },
    expires_at: Timestamp,
  },
} as const satisfies JsonSchema;

const CardTransaction = {
  type: 'object',
  required: [
    'id',
    'type',
    'issuer_transaction_id',
    'amount_minor',
    'ledger_minor',
    'unfunded_minor',
    'created_at',
  ],
  properties: {
    id: { type: 'string', pattern: '^ctxn_' },
    type: { enum: ['capture', 'refund'] },
    issuer_transaction_id: { type: 'string' },
    amount_minor: BigintString,
    ledger_minor: { ...BigintString, description: "What the wallet's ledger moved for it." },
    unfunded_minor: {
      ...BigintString,
      description: 'A capture beyond the 15% over-capture tolerance (or the balance): the part not debited.',
    },
    created_at: Timestamp,
  },
} as const satisfies JsonSchema;

export const CardAuthorization = {
  type: 'object',
  required: [
    'id',
    'object',
    'card_id',
    'attempt_id',
    'issuer_authorization_id',
    'amount_minor',
    'approved',
    'status',
  ],
  properties: {
    id: { type: 'string', pattern: '^cauth_' },
    object: { const: 'card_authorization' },
    card_id: { type: 'string' },
    wallet_id: { type: 'string' },
    attempt_id: {
      type: 'string',
      description: 'The money attempt (`card:<issuer authorization id>`) owning the hold.',
    },
    issuer_authorization_id: { type: 'string' },
    amount_minor: BigintString,
    currency: { type: 'string' },
    merchant: { type: 'object' },
    approved: { type: 'boolean' },
    decline_reason: Nullable({ type: 'string' }),
    status: {
      enum: ['pending', 'closed', 'reversed', 'expired', 'declined'],
      description:
        "`pending`: held; `closed`: captured; `reversed`, `expired`: released; `declined`: nothing held. `expired` is the issuer's expiry or the gateway's own at `expires_at`; a capture that arrives after it is forced, as card networks do: debited as a new debit while the balance covers it, the rest recorded as `unfunded_minor`.",
    },
    held_minor: BigintString,
    captured_minor: BigintString,
    refunded_minor: BigintString,
    expires_at: {
      ...Nullable(Timestamp),
      description:
        "When an approval not captured or reversed by then is released by the gateway (`card.authorization.expired` with `expired_by: gateway`): the issuer's stated expiry, else seven days after the decision, as card networks let an authorization stand. Null when declined.",
    },
    transactions: { type: 'array', items: CardTransaction },
    created_at: Timestamp,
    updated_at: Timestamp,
  },
} as const satisfies JsonSchema;

export const CardAuthorizationList = {
  type: 'object',
  required: ['authorizations'],
  properties: { authorizations: { type: 'array', items: CardAuthorization } },
} as const satisfies JsonSchema;
