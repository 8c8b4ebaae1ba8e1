// Balances, ledger entries and transfers as every reader shows them (the REST responses and the gateway's
// own tools alike): bigints as decimal strings.
import type { EntryRow } from '../ledger/entries';
import type { TransferInput, TransferResult } from './transfers';
import type { BalanceRow } from './wallets';

export function balanceView(row: BalanceRow) {
  return {
    wallet_id: row.wallet_id,
    currency: row.currency,
    balance_minor: row.balance_minor.toString(),
    available_minor: row.available_minor.toString(),
    updated_at: row.updated_at,
  };
}

export function entryView(row: EntryRow) {
  return {
    id: row.id.toString(),
    wallet_id: row.wallet_id,
    org_id: row.org_id,
    currency: row.currency,
    amount_minor: row.amount_minor.toString(),
    kind: row.kind,
    hold_id: row.hold_id,
    mandate_id: row.mandate_id,
    attempt_id: row.attempt_id,
    external_ref: row.external_ref,
    reconciled_at: row.reconciled_at,
    posted_at: row.posted_at,
    metadata: row.metadata,
    agent_id: row.agent_id,
  };
}

export function transferView(input: TransferInput, result: TransferResult) {
  return {
    id: result.id,
    from_wallet_id: input.fromWalletId,
    to_wallet_id: input.toWalletId,
    currency: input.currency,
    amount_minor: input.amount.toString(),
    entries: [entryView(result.debit), entryView(result.credit)],
    balances: result.balances.map(balanceView),
  };
}
