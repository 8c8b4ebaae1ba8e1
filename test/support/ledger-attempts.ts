// The attempt engine's side of the ledger: an attempt claimed in spend_attempts, and the hold, release and
// debit it posts through the same domain functions as the spend activities (postLocked under the wallet and
// slot locks, in one transaction).
import { randomBytes } from 'node:crypto';
import { sql } from 'slonik';
import { withLedgerErrors } from '../../domain/ledger/conflicts';
import {
  ledgerTransactionSettings,
  lockActiveWallet,
  lockSlot,
  postLocked,
  type PostResult,
} from '../../domain/ledger/post';
import type { Gateway, Tenant } from './harness';

export type EngineKind = 'hold' | 'release' | 'debit';

/** Inserts the row a wallet execute writes when it claims its attempt, before it holds. */
export async function startAttempt(
  gw: Gateway,
  t: Tenant,
  walletId: string,
  attemptId = `att_${randomBytes(6).toString('hex')}`,
): Promise<string> {
  await gw.db.query(sql.unsafe`
    INSERT INTO attempts (org_id, attempt_id, family, project_id, wallet_id, fingerprint, request, workflow_type, workflow_id)
    VALUES (${t.orgId}, ${attemptId}, 'wallet_execute', ${t.projectId}, ${walletId}, ${`hash-${attemptId}`}, ${sql.jsonb({})},
            'moneyAttempt', ${`spend/${t.orgId}/${attemptId}`})`);
  return attemptId;
}

/** Marks the attempt finished, with its stored reply, as the engine does when it answers. */
export async function finishAttempt(gw: Gateway, t: Tenant, attemptId: string): Promise<void> {
  await gw.db.query(sql.unsafe`
    UPDATE attempts SET status = 'completed', response_status = 200, response_body = ${sql.jsonb({})}, finished_at = now()
    WHERE org_id = ${t.orgId} AND id_space = 'wallet' AND attempt_id = ${attemptId}`);
}

/** One step of an attempt on the wallet's ledger, committed when it resolves; refusals reject with the ledger's ApiError. */
export async function engineStep(
  gw: Gateway,
  t: Tenant,
  walletId: string,
  kind: EngineKind,
  amount: bigint | number,
  attemptId: string | null,
  currency = 'BRL',
): Promise<PostResult> {
  const scope = { orgId: t.orgId, projectId: t.projectId, environment: 'test' as const };
  return withLedgerErrors(() =>
    gw.db.transaction(async (tx) => {
      await ledgerTransactionSettings(tx);
      await lockActiveWallet(tx, scope, walletId);
      const slot = await lockSlot(tx, scope, walletId, currency);
      return postLocked(tx, scope, { walletId, currency, kind, amount: BigInt(amount), attemptId }, slot);
    }),
  );
}
