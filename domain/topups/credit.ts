// Crediting money that arrived: the top-up row, the ledger `fund` entry (external_ref = the provider's
// reference) and `wallet.topup.credited` in one transaction, as inbound TED credits do. A Pix top-up's
// row exists already and leaves `pending` once; a USDC deposit's row is claimed by its (tx hash, log
// index). Either way a retry after a crash finds its own earlier write and credits nothing more.
import { sql } from 'slonik';
import { z } from 'zod';
import type { DatabasePool, DatabaseTransactionConnection } from '../../runtime/database';
import { recordEvent, type EventScope } from '../events/record';
import { sortableId } from '../ids';
import { ledgerTransactionSettings, lockActiveWallet, lockSlot, postLocked } from '../ledger/post';
import { TOPUP_COLUMNS, topupRow, type TopupRow } from './topups';

export type CreditOutcome = { outcome: 'credited' | 'already_credited' | 'not_pending'; topup: TopupRow };

const scopeOf = (row: TopupRow): EventScope => ({
  orgId: row.org_id,
  projectId: row.project_id,
  environment: row.environment,
});

/** Posts the fund entry for a claimed pending row and marks the row credited. */
async function postCredit(
  tx: DatabaseTransactionConnection,
  row: TopupRow,
  credit: { providerRef: string; amountMinor: bigint; details: Record<string, unknown> },
): Promise<TopupRow> {
  const scope = scopeOf(row);
  await ledgerTransactionSettings(tx);
  await lockActiveWallet(tx, scope, row.wallet_id);
  const slot = await lockSlot(tx, scope, row.wallet_id, row.currency);
  const posted = await postLocked(
    tx,
    scope,
    {
      walletId: row.wallet_id,
      currency: row.currency,
      kind: 'fund',
      amount: credit.amountMinor,
      externalRef: credit.providerRef,
      metadata: { topup_id: row.id, rail: row.method, direction: 'in', ...credit.details },
    },
    slot,
  );
  const credited = await tx.one(sql.type(topupRow)`
    UPDATE wallet_topups SET status = 'credited', provider_ref = ${credit.providerRef},
      amount_minor = ${credit.amountMinor.toString()}, ledger_entry_id = ${posted.entry.id.toString()},
      details = details || ${sql.jsonb(credit.details as never)}, settled_at = now()
    WHERE id = ${row.id} RETURNING ${TOPUP_COLUMNS}`);
  await recordEvent(tx, scope, 'wallet.topup.credited', {
    topup_id: credited.id,
    wallet_id: credited.wallet_id,
    method: credited.method,
    currency: credited.currency,
    amount_minor: credited.amount_minor.toString(),
    external_ref: credit.providerRef,
    ledger_entry_id: posted.entry.id.toString(),
    ...credit.details,
  });
  return credited;
}

/**
 * Credits a Pix top-up whose charge the PSP reports paid, by the amount the PSP reports. A frozen or closed
 * wallet throws `wallet_not_active` and nothing is written: the caller's retry credits it once it is active.
 */
export async function creditPixTopup(
  db: DatabasePool,
  topupId: string,
  paid: { endToEndId: string; amountMinor: bigint },
): Promise<CreditOutcome> {
  return db.transaction(async (tx) => {
    const row = await tx.one(sql.type(topupRow)`
      SELECT ${TOPUP_COLUMNS} FROM wallet_topups WHERE id = ${topupId} FOR UPDATE`);
    if (row.status === 'credited') return { outcome: 'already_credited' as const, topup: row };
    // Asked even after the deadline, a paid charge wins over a lapse that was not yet recorded; a row
    // already ended unpaid stays ended and the money is the operators' to return.
    if (row.status !== 'pending') return { outcome: 'not_pending' as const, topup: row };
    const topup = await postCredit(tx, row, {
      providerRef: `pix:${paid.endToEndId}`,
      amountMinor: paid.amountMinor,
      details: { end_to_end_id: paid.endToEndId, txid: row.txid },
    });
    return { outcome: 'credited' as const, topup };
  });
}

export interface UsdcDeposit {
  walletId: string;
  txHash: string;
  logIndex: number;
  blockNumber: bigint;
  from: string;
  amountMinor: bigint;
  network: string;
}

export const usdcRef = (txHash: string, logIndex: number): string =>
  `usdc:${txHash.toLowerCase()}:${logIndex}`;

const addressScope = z.object({
  org_id: z.string(),
  project_id: z.string(),
  environment: z.enum(['live', 'test']),
});

/** Credits one confirmed transfer to a wallet's deposit address, once per (tx hash, log index). */
export async function creditUsdcDeposit(db: DatabasePool, deposit: UsdcDeposit): Promise<CreditOutcome> {
  const providerRef = usdcRef(deposit.txHash, deposit.logIndex);
  return db.transaction(async (tx) => {
    const owner = await tx.one(sql.type(addressScope)`
      SELECT org_id, project_id, environment FROM wallet_deposit_addresses WHERE wallet_id = ${deposit.walletId}`);
    const claimed = await tx.maybeOne(sql.type(topupRow)`
      INSERT INTO wallet_topups (id, org_id, project_id, environment, wallet_id, method, currency, amount_minor, provider_ref)
      VALUES (${sortableId('wtu')}, ${owner.org_id}, ${owner.project_id}, ${owner.environment}, ${deposit.walletId},
              'usdc', 'USDC', ${deposit.amountMinor.toString()}, ${providerRef})
      ON CONFLICT (wallet_id, provider_ref) DO NOTHING RETURNING ${TOPUP_COLUMNS}`);
    if (!claimed) {
      const earlier = await tx.one(sql.type(topupRow)`
        SELECT ${TOPUP_COLUMNS} FROM wallet_topups WHERE wallet_id = ${deposit.walletId} AND provider_ref = ${providerRef}`);
      return { outcome: 'already_credited' as const, topup: earlier };
    }
    const topup = await postCredit(tx, claimed, {
      providerRef,
      amountMinor: deposit.amountMinor,
      details: {
        network: deposit.network,
        tx_hash: deposit.txHash.toLowerCase(),
        log_index: deposit.logIndex,
        block_number: deposit.blockNumber.toString(),
        from: deposit.from,
      },
    });
    return { outcome: 'credited' as const, topup };
  });
}
