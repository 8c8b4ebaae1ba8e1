// Wallets, balances, ledger entries, funding sources, transfers and reconciliation anomalies:
// request schemas (validated) and response schemas (documented).
import { CURRENCY_CODES } from '../../contracts/currencies';
import { ENTRY_KINDS } from '../../contracts/ledger-entry-kinds';
import { Nullable, type JsonSchema } from './json-schema';
import { BigintString, Metadata, Timestamp } from './common';

export const CurrencyCode = {
  enum: [...CURRENCY_CODES],
  description: 'Wallet currency; minor-unit exponents: BRL, USD, MXN, COP, ARS 2; USDC 6; BRLA 18.',
} as const satisfies JsonSchema;
const PositiveMinor = {
  type: 'string',
  pattern: '^(?=[0-9]{1,30}$)0*[1-9][0-9]*$',
  description: 'A positive amount in minor units, as decimal digits.',
} as const satisfies JsonSchema;

export const WalletBalance = {
  type: 'object',
  required: ['wallet_id', 'currency', 'balance_minor', 'available_minor', 'updated_at'],
  properties: {
    wallet_id: { type: 'string' },
    currency: CurrencyCode,
    balance_minor: BigintString,
    available_minor: { ...BigintString, description: 'Balance less open holds; never negative.' },
    updated_at: Timestamp,
  },
} as const satisfies JsonSchema;

export const Wallet = {
  type: 'object',
  required: [
    'id',
    'org_id',
    'project_id',
    'agent_id',
    'display_name',
    'status',
    'created_at',
    'closed_at',
    'metadata',
  ],
  properties: {
    id: { type: 'string', pattern: '^wal_' },
    org_id: { type: 'string' },
    project_id: { type: 'string' },
    agent_id: Nullable({ type: 'string' }),
    display_name: { type: 'string' },
    currency: CurrencyCode,
    status: { enum: ['active', 'frozen', 'closed'] },
    created_at: Timestamp,
    closed_at: Nullable(Timestamp),
    metadata: Metadata,
    balances: { type: 'array', items: WalletBalance },
  },
} as const satisfies JsonSchema;
export const WalletList = {
  type: 'object',
  required: ['wallets', 'has_more'],
  properties: { wallets: { type: 'array', items: Wallet }, has_more: { type: 'boolean' } },
} as const satisfies JsonSchema;

export const WalletCreate = {
  type: 'object',
  required: ['display_name', 'currency'],
  additionalProperties: false,
  properties: {
    display_name: { type: 'string', minLength: 1, maxLength: 120 },
    currency: CurrencyCode,
    agent_id: Nullable({ type: 'string', minLength: 1, maxLength: 200 }),
    metadata: { ...Metadata, default: {} },
  },
} as const satisfies JsonSchema;

export const WalletListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { enum: ['active', 'frozen', 'closed'] },
    agent_id: { type: 'string', minLength: 1 },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
    starting_after: {
      type: 'string',
      minLength: 1,
      description: 'Cursor: the last wallet id of the previous page.',
    },
  },
} as const satisfies JsonSchema;

export const WalletLedgerEntry = {
  type: 'object',
  required: [
    'id',
    'wallet_id',
    'org_id',
    'currency',
    'amount_minor',
    'kind',
    'mandate_id',
    'attempt_id',
    'external_ref',
    'reconciled_at',
    'posted_at',
    'metadata',
  ],
  properties: {
    id: BigintString,
    wallet_id: { type: 'string' },
    org_id: { type: 'string' },
    currency: CurrencyCode,
    amount_minor: {
      ...BigintString,
      description: 'Signed: positive adds to available_minor, negative takes from it.',
    },
    kind: { enum: [...ENTRY_KINDS] },
    hold_id: Nullable({ type: 'string' }),
    mandate_id: Nullable({ type: 'string' }),
    attempt_id: Nullable({ type: 'string' }),
    external_ref: Nullable({ type: 'string' }),
    reconciled_at: Nullable(Timestamp),
    posted_at: Timestamp,
    metadata: Metadata,
    agent_id: {
      ...Nullable({ type: 'string' }),
      description:
        "On a hold or debit: the agent the policy gate decided the spend as (a session's agent, a consumer spend's caller, the wallet's agent), whose budgets count it whichever wallet paid. Null on entries no agent spent.",
    },
  },
} as const satisfies JsonSchema;

const NullableRef = {
  anyOf: [{ type: 'string', minLength: 1, maxLength: 200 }, { type: 'null' }],
  default: null,
} as const satisfies JsonSchema;
export const WalletLedgerPost = {
  type: 'object',
  required: ['wallet_id', 'org_id', 'currency', 'amount_minor', 'kind'],
  additionalProperties: false,
  description: [
    'Who may post: `hold`, `release` and `debit` are written only by the attempt engine, as steps of the attempt that owns the hold',
    '(403 `engine_owned_entry` for API keys and the service credential alike). In a test project an API key may post `fund`, a sandbox top-up;',
    '`reconcile`, `reverse` and `fee` are 403 `operator_adjustment_required`. In a live project no API key posts any entry',
    "(403 `live_ledger_locked`); OAuth tokens never carry this route's scope (403 `route_scope_unmapped`). Live balance comes from",
    'real arrivals (top-ups, deposits, inbound transfers). The service credential',
    'posts `fund`, `reconcile`, `reverse` and `fee` in any project as an operator adjustment: `x-service-user` names the operator',
    '(400 `user_id_required` without it) and `reason` says why (required); both are kept with the entry and published as',
    '`ledger.adjustment_posted`. Effects by kind for an amount a: `fund`, `reconcile`, `reverse` add a to balance_minor and',
    'available_minor; `fee` takes a from both. A post that would make available_minor negative is 409 `balance_constraint_violation`',
    'and writes nothing.',
  ].join(' '),
  properties: {
    wallet_id: { type: 'string', minLength: 1 },
    org_id: { type: 'string', minLength: 1 },
    currency: CurrencyCode,
    amount_minor: PositiveMinor,
    kind: { enum: [...ENTRY_KINDS] },
    mandate_id: NullableRef,
    attempt_id: NullableRef,
    external_ref: NullableRef,
    metadata: { ...Metadata, default: {} },
    reason: {
      type: 'string',
      minLength: 1,
      maxLength: 500,
      description:
        'Why an operator makes this adjustment; required with the service credential, kept with the entry.',
    },
  },
} as const satisfies JsonSchema;
export const LedgerPostResult = {
  type: 'object',
  required: ['entry', 'entries', 'balance'],
  properties: {
    entry: WalletLedgerEntry,
    entries: {
      type: 'array',
      items: WalletLedgerEntry,
      description: 'The entry, then the remainder release of a partial debit.',
    },
    balance: WalletBalance,
  },
} as const satisfies JsonSchema;

export const LedgerListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    kind: { enum: [...ENTRY_KINDS] },
    currency: CurrencyCode,
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
    before: {
      type: 'string',
      pattern: '^[0-9]{1,19}$',
      description: 'Cursor: entries older than this entry id.',
    },
  },
} as const satisfies JsonSchema;
export const LedgerList = {
  type: 'object',
  required: ['entries', 'has_more', 'next_before'],
  properties: {
    entries: { type: 'array', items: WalletLedgerEntry },
    has_more: { type: 'boolean' },
    next_before: Nullable(BigintString),
  },
} as const satisfies JsonSchema;

export const WalletFundingSource = {
  type: 'object',
  required: ['wallet_id', 'connection_id', 'currency', 'enabled', 'created_at', 'metadata'],
  properties: {
    wallet_id: { type: 'string' },
    connection_id: { type: 'string' },
    currency: CurrencyCode,
    enabled: { type: 'boolean' },
    created_at: Timestamp,
    metadata: Metadata,
  },
} as const satisfies JsonSchema;
export const WalletFundingSourceBind = {
  type: 'object',
  required: ['connection_id', 'currency'],
  additionalProperties: false,
  properties: {
    connection_id: { type: 'string', minLength: 1 },
    currency: CurrencyCode,
    metadata: { ...Metadata, default: {} },
  },
} as const satisfies JsonSchema;

export const WalletTransferCreate = {
  type: 'object',
  required: ['to_wallet_id', 'currency', 'amount_minor'],
  additionalProperties: false,
  properties: {
    to_wallet_id: { type: 'string', minLength: 1 },
    currency: CurrencyCode,
    to_currency: {
      ...CurrencyCode,
      description: 'Defaults to `currency`; a different currency is refused (no FX is guessed).',
    },
    amount_minor: PositiveMinor,
    external_ref: {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      description: 'Idempotency: a repeated reference is 409 `ledger_conflict`.',
    },
    metadata: { ...Metadata, default: {} },
  },
} as const satisfies JsonSchema;
export const WalletTransfer = {
  type: 'object',
  required: ['id', 'from_wallet_id', 'to_wallet_id', 'currency', 'amount_minor', 'entries', 'balances'],
  properties: {
    id: { type: 'string', pattern: '^trf_' },
    from_wallet_id: { type: 'string' },
    to_wallet_id: { type: 'string' },
    currency: CurrencyCode,
    amount_minor: BigintString,
    entries: { type: 'array', items: WalletLedgerEntry },
    balances: { type: 'array', items: WalletBalance },
  },
} as const satisfies JsonSchema;

export const WalletReconAnomaly = {
  type: 'object',
  required: [
    'id',
    'wallet_id',
    'org_id',
    'kind',
    'ledger_entry_id',
    'external_ref',
    'amount_minor',
    'currency',
    'detected_at',
    'status',
    'resolved_at',
    'resolution_note',
    'metadata',
  ],
  properties: {
    id: { type: 'string', pattern: '^anm_' },
    wallet_id: Nullable({ type: 'string' }),
    org_id: { type: 'string' },
    kind: { enum: ['debit_without_receipt', 'receipt_without_debit'] },
    ledger_entry_id: Nullable(BigintString),
    external_ref: Nullable({ type: 'string' }),
    amount_minor: Nullable(BigintString),
    currency: Nullable(CurrencyCode),
    detected_at: Timestamp,
    status: { enum: ['open', 'resolved', 'dismissed'] },
    resolved_at: Nullable(Timestamp),
    resolution_note: Nullable({ type: 'string' }),
    metadata: Metadata,
  },
} as const satisfies JsonSchema;
export const AnomalyListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { enum: ['open', 'resolved', 'dismissed'] },
    wallet_id: { type: 'string', minLength: 1 },
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
  },
} as const satisfies JsonSchema;
export const WalletAnomalyResolve = {
  type: 'object',
  required: ['status'],
  additionalProperties: false,
  properties: {
    status: { enum: ['resolved', 'dismissed'] },
    note: { type: 'string', minLength: 1, maxLength: 512 },
  },
} as const satisfies JsonSchema;
export const ReconRun = {
  type: 'object',
  required: [
    'id',
    'status',
    'started_at',
    'finished_at',
    'debits_checked',
    'receipts_checked',
    'anomalies_opened',
  ],
  properties: {
    id: { type: 'string', pattern: '^rcn_' },
    status: { enum: ['running', 'completed', 'failed'] },
    started_at: Timestamp,
    finished_at: Nullable(Timestamp),
    debits_checked: { type: 'integer' },
    receipts_checked: { type: 'integer' },
    anomalies_opened: { type: 'integer' },
  },
} as const satisfies JsonSchema;
