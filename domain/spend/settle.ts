// Resolving a spend's hold: debit it once the provider paid, or release it when the payment failed.
// Both find their own earlier write on retry. A frozen wallet still settles holds it already granted.
import { sql } from 'slonik';
import { z } from 'zod';
import type { DatabasePool, DatabaseTransactionConnection } from '../../runtime/database';
import { ApiError } from '../errors';
import type { EventScope } from '../events/record';
import { withLedgerErrors } from '../ledger/conflicts';
import { LOCK_TIMEOUT, lockHeld, lockSlot, postLocked } from '../ledger/post';
import type { SpendInput } from '../../contracts/spend';

const holdState = z.object({
  id: z.string(),
  currency: z.string(),
  amount_minor: z.bigint(),
  status: z.enum(['open', 'debited', 'released']),
  resolved_entry_id: z.bigint().nullable(),
});

/** The wallet (shared, which sets the lock wait too), its slot and the attempt's hold (if any), one by one. */
async function lockOneByOne(tx: DatabaseTransactionConnection, scope: EventScope, input: SpendInput) {
  const wallet = await tx.maybeOne(sql.unsafe`
    SELECT id, set_config('lock_timeout', ${LOCK_TIMEOUT}, true) AS lock_timeout
    FROM wallets WHERE org_id = ${input.orgId} AND project_id = ${input.projectId} AND id = ${input.walletId} FOR SHARE`);
  if (!wallet) throw new ApiError(404, 'not_found', 'Wallet not found');
  const slot = await lockSlot(tx, scope, input.walletId, input.currency);
  const hold = await tx.maybeOne(sql.type(holdState)`
    SELECT id, currency, amount_minor, status, resolved_entry_id FROM wallet_holds WHERE wallet_id = ${input.walletId} AND attempt_id = ${input.attemptId} FOR UPDATE`);
  return { slot, hold };
}

async function resolveHold(
  db: DatabasePool,
  input: SpendInput,
  kind: 'debit' | 'release',
  externalRef: string | null,
  ifHeld = false,
): Promise<string | null> {
  const scope: EventScope = {
    orgId: input.orgId,
    projectId: input.projectId,
    environment: input.environment,
  };
  return withLedgerErrors(() =>
    db.transaction(async (tx) => {
      // Same lock order as every post: wallet (shared), then the slot, then the hold; one statement when all
      // three are there, one by one otherwise, to say which is missing.
      const held = await lockHeld(tx, scope, input.walletId, input.currency, input.attemptId);
      const { slot, hold } = held ?? (await lockOneByOne(tx, scope, input));
      if (!hold && ifHeld) return null;
      if (!hold)
        throw new ApiError(409, 'ledger_conflict', 'The attempt holds nothing on this wallet', {
          reason: 'hold_not_found',
        });
      const wanted = kind === 'debit' ? 'debited' : 'released';
      if (hold.status === wanted) return hold.resolved_entry_id!.toString();
      if (hold.status !== 'open')
        throw new ApiError(409, 'ledger_conflict', `The hold was already ${hold.status}`, {
          reason: 'hold_already_resolved',
        });
      const posted = await postLocked(
        tx,
        scope,
        {
          walletId: input.walletId,
          currency: input.currency,
          kind,
          amount: kind === 'debit' ? BigInt(input.amountMinor) : hold.amount_minor,
          mandateId: input.mandateId,
          attemptId: input.attemptId,
          externalRef,
          metadata: {
            recipient: input.recipient,
            ...(input.approvalId ? { approval_id: input.approvalId } : {}),
          },
        },
        slot,
        { hold },
      );
      return posted.entry.id.toString();
    }),
  );
}

export async function debitSpend(db: DatabasePool, input: SpendInput, paymentId: string): Promise<string> {
  return (await resolveHold(db, input, 'debit', `payment:${paymentId}`))!;
}

export async function releaseSpend(db: DatabasePool, input: SpendInput): Promise<string> {
  return (await resolveHold(db, input, 'release', null))!;
}

/**
 * Frees what an attempt that broke before its dispatch may hold: its hold, if the authorization wrote one
 * (it may have committed before its activity's answer was lost). Null when it held nothing.
 */
export function releaseSpendIfHeld(db: DatabasePool, input: SpendInput): Promise<string | null> {
  return resolveHold(db, input, 'release', null, true);
}
