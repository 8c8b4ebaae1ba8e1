// Shapes wallets, balances and ledger entries for responses: bigints as decimal strings.
import { balanceView } from '../../domain/wallets/views';
import type { BalanceRow, WalletRow } from '../../domain/wallets/wallets';
import type { FundingSourceRow } from '../../domain/wallets/funding-sources';

export function presentWallet(row: WalletRow, balances?: BalanceRow[]) {
  return {
    id: row.id,
    org_id: row.org_id,
    project_id: row.project_id,
    agent_id: row.agent_id,
    display_name: row.display_name,
    currency: row.currency,
    status: row.status,
    created_at: row.created_at,
    closed_at: row.closed_at,
    metadata: row.metadata,
    ...(balances ? { balances: balances.filter((b) => b.wallet_id === row.id).map(balanceView) } : {}),
  };
}

export function presentFundingSource(row: FundingSourceRow) {
  return {
    wallet_id: row.wallet_id,
    connection_id: row.connection_id,
    currency: row.currency,
    enabled: row.enabled,
    created_at: row.created_at,
    metadata: row.metadata,
  };
}
