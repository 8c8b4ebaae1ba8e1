// A balance as every reader shows it (the REST responses and the gateway's `wallet.balances` tool):
// bigints as decimal strings.
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
