// The funds side of the consumer-payments seam, bound to the ledger: hold, debit and release on the
// consumer's sub-account, each an entry keyed by the attempt id (wallet_holds is unique per wallet and
// attempt), so a retried step finds its own earlier write instead of moving money twice. A consent pull
// (Pix under `pix-consent`) holds nothing there: its caps reservation is its hold, and its settlement is a
// pass-through on the project's clearing account (clearing.ts).
import { sql } from 'slonik';
import { z } from 'zod';
import type { DatabaseTransactionConnection } from '../../runtime/database';
import { ApiError } from '../errors';
import type { EventScope } from '../events/record';
import { LOCK_TIMEOUT, lockActiveSlot, lockHeld, lockSlot, postLocked } from '../ledger/post';
import type { FundsSeam, MoneyMove } from './seams';
import { prefixedId } from '../ids';
import { countForBudgets } from './caps';
import { postPassThrough } from './clearing';
import { ensureSubAccount, findSubAccount, subAccountWallet } from './sub-accounts';

const holdRow = z.object({
  id: z.string(),
  currency: z.string(),
  amount_minor: z.bigint(),
  status: z.enum(['open', 'debited', 'released']),
  resolved_entry_id: z.bigint().nullable(),
});

/** The attempt's hold on the wallet; `locked` reads it under its lock, for the post that resolves it. */
async function holdOf(
  tx: DatabaseTransactionConnection,
  walletId: string,
  attemptId: string,
  locked = false,
) {
  return tx.maybeOne(sql.type(holdRow)`
    SELECT id, currency, amount_minor, status, resolved_entry_id FROM wallet_holds
    WHERE wallet_id = ${walletId} AND attempt_id = ${attemptId}${locked ? sql.fragment` FOR UPDATE` : sql.fragment``}`);
}

const entryFields = (move: MoneyMove) => ({
  currency: move.currency,
  amount: move.amountMinor,
  mandateId: move.mandateId,
  attemptId: move.attemptId,
  agentId: move.agentId ?? null,
});

/**
 * Debits or releases the attempt's hold; a retry finds the entry that already resolved it. A frozen
 * sub-account still settles holds it granted (the provider may already have paid), so the wallet is
 * locked without the active check that new holds need, in the ledger's lock order: wallet, slot, hold.
 * The sub-account, the three locks and the lock wait are one statement (lockHeld); `ifHeld` answers null
 * where the consumer has no sub-account or the attempt no hold on it, which is otherwise a conflict.
 */
async function resolveHold(
  tx: DatabaseTransactionConnection,
  scope: EventScope,
  move: MoneyMove & { externalRef?: string },
  kind: 'debit' | 'release',
  ifHeld = false,
): Promise<string | null> {
  const held =
    (await lockHeld(tx, scope, subAccountWallet(scope, move.consumerId), move.currency, move.attemptId)) ??
    (await lockOneByOne(tx, scope, move, ifHeld));
  if (!held) return null;
  const { walletId, slot, hold } = held;
  const wanted = kind === 'debit' ? 'debited' : 'released';
  if (hold.status === wanted && hold.resolved_entry_id !== null) return hold.resolved_entry_id.toString();
  const posted = await postLocked(
    tx,
    scope,
    {
      walletId,
      kind,
      ...entryFields(move),
      externalRef: move.externalRef ?? null,
      metadata: { rail: move.rail },
    },
    slot,
    { hold },
  );
  return posted.entry.id.toString();
}

/** The sub-account, wallet, slot and hold one by one, to say which is missing (null for `ifHeld`). */
async function lockOneByOne(
  tx: DatabaseTransactionConnection,
  scope: EventScope,
  move: MoneyMove,
  ifHeld: boolean,
) {
  const sub = await findSubAccount(tx, scope, move.consumerId);
  if (!sub && ifHeld) return null;
  // A debit or release always follows this attempt's hold, which opened the sub-account.
  if (!sub)
    throw new ApiError(409, 'ledger_conflict', 'The consumer has no sub-account holding this attempt', {
      reason: 'hold_not_found',
    });
  const walletId = sub.wallet_id;
  if (ifHeld && !(await holdOf(tx, walletId, move.attemptId))) return null;
  // The wallet's read sets the transaction's lock wait too, saving a round trip.
  await tx.query(sql.unsafe`
    SELECT id, set_config('lock_timeout', ${LOCK_TIMEOUT}, true) AS lock_timeout
    FROM wallets WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND id = ${walletId} FOR SHARE`);
  const slot = await lockSlot(tx, scope, walletId, move.currency);
  const hold = await holdOf(tx, walletId, move.attemptId, true);
  if (!hold)
    throw new ApiError(409, 'ledger_conflict', "The attempt holds nothing on the consumer's sub-account", {
      reason: 'hold_not_found',
    });
  return { walletId, slot, hold };
}

export function ledgerFundsSeam(): FundsSeam {
  return {
    async hold(tx, scope, move) {
      // Nothing rests with the gateway: the attempt's claim (marked on its row) is the hold, and the caps,
      // reserved just before, count it from now on; so does its agent's budget, through that reservation.
      if (move.funding === 'consent_pull') {
        if (move.agentId) await countForBudgets(tx, scope, move.attemptId, move.agentId);
        return { holdId: prefixedId('pul') };
      }
      // The sub-account and this attempt's earlier hold on it, in one read.
      const found = await tx.maybeOne(sql.type(
        z.object({ wallet_id: z.string(), hold_id: z.string().nullable() }),
      )`
        SELECT s.wallet_id, (SELECT h.id FROM wallet_holds h WHERE h.wallet_id = s.wallet_id AND h.attempt_id = ${move.attemptId}) AS hold_id
        FROM (${subAccountWallet(scope, move.consumerId)}) s`);
      if (found?.hold_id) return { holdId: found.hold_id };
      const walletId =
        found?.wallet_id ?? (await ensureSubAccount(tx, scope, move.consumerId, move.currency)).wallet_id;
      const slot = await lockActiveSlot(tx, scope, walletId, move.currency);
      if (slot.available_minor < move.amountMinor)
        return { insufficientFunds: true, availableMinor: slot.available_minor };
      const posted = await postLocked(
        tx,
        scope,
        {
          walletId,
          kind: 'hold',
          ...entryFields(move),
          metadata: { rail: move.rail, consumer_id: move.consumerId },
        },
        slot,
        // Read just above in this transaction: none (a second hold would break the unique attempt index).
        { hold: null },
      );
      return { holdId: posted.entry.hold_id! };
    },

    async debit(tx, scope, move) {
      if (move.funding === 'consent_pull')
        return { debitId: await postPassThrough(tx, scope, 'pix-consent', move) };
      return { debitId: (await resolveHold(tx, scope, move, 'debit'))! };
    },

    async release(tx, scope, move) {
      if (move.funding === 'consent_pull') return { releaseId: null };
      return { releaseId: await resolveHold(tx, scope, move, 'release', true) };
    },

    async sourceAccount(tx, scope, consumerId) {
      const sub = await findSubAccount(tx, scope, consumerId);
      if (!sub)
        throw new ApiError(409, 'ledger_conflict', 'The consumer has no sub-account to send from', {
          reason: 'sub_account_missing',
        });
      return sub.wallet_id;
    },
  };
}
