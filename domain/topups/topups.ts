// Wallet top-ups as rows: open a Pix top-up (once per caller attempt id), read and list them, record the
// charge's BR Code, and end an unpaid one. Crediting lives in credit.ts; the row leaves `pending` once.
import { createHash } from 'node:crypto';
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabasePool } from '../../runtime/database';
import { ApiError, notFound } from '../errors';
import { recordEvent, type EventScope } from '../events/record';
import { sortableId } from '../ids';
import { getWallet } from '../wallets/wallets';

export const topupRow = z.object({
  id: z.string(),
  org_id: z.string(),
  project_id: z.string(),
  environment: z.enum(['live', 'test']),
  wallet_id: z.string(),
  method: z.enum(['pix', 'usdc']),
  currency: z.string(),
  amount_minor: z.bigint(),
  status: z.enum(['pending', 'credited', 'expired', 'failed']),
  attempt_id: z.string().nullable(),
  request_fingerprint: z.string().nullable(),
  txid: z.string().nullable(),
  br_code: z.string().nullable(),
  expires_at: z.string().nullable(),
  provider_ref: z.string().nullable(),
  ledger_entry_id: z.bigint().nullable(),
  details: z.record(z.unknown()),
  failure_reason: z.string().nullable(),
  created_at: z.string(),
  settled_at: z.string().nullable(),
});
export type TopupRow = z.infer<typeof topupRow>;

export const TOPUP_COLUMNS = sql.fragment`id, org_id, project_id, environment, wallet_id, method, currency, amount_minor,
  status, attempt_id, request_fingerprint, txid, br_code, expires_at, provider_ref, ledger_entry_id, details,
  failure_reason, created_at, settled_at`;

export const topupMethodUnsupported = (method: string, currency: string) =>
  new ApiError(422, 'topup_method_unsupported', `A ${currency} wallet cannot be topped up by ${method}`, {
    method,
    currency,
  });

/** The Pix txid of a top-up: its ulid's 26 alphanumerics, so a retried charge names the same one. */
export const topupTxid = (topupId: string): string => topupId.replace(/^wtu_/, '');

export async function findTopup(db: CommonQueryMethods, id: string): Promise<TopupRow | null> {
  return db.maybeOne(sql.type(topupRow)`SELECT ${TOPUP_COLUMNS} FROM wallet_topups WHERE id = ${id}`);
}

export async function findTopupByTxid(db: CommonQueryMethods, txid: string): Promise<TopupRow | null> {
  return db.maybeOne(sql.type(topupRow)`SELECT ${TOPUP_COLUMNS} FROM wallet_topups WHERE txid = ${txid}`);
}

/** One top-up of one wallet of the caller's project; anything else is 404. */
export async function getTopup(
  db: CommonQueryMethods,
  scope: EventScope,
  walletId: string,
  id: string,
): Promise<TopupRow> {
  const row = await db.maybeOne(sql.type(topupRow)`
    SELECT ${TOPUP_COLUMNS} FROM wallet_topups
    WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND wallet_id = ${walletId} AND id = ${id}`);
  if (!row) throw notFound('Top-up');
  return row;
}

export async function listTopups(
  db: CommonQueryMethods,
  scope: EventScope,
  walletId: string,
  page: { limit: number; startingAfter?: string },
): Promise<TopupRow[]> {
  await getWallet(db, scope.orgId, scope.projectId, walletId);
  const after = page.startingAfter ? sql.fragment`AND id < ${page.startingAfter}` : sql.fragment``;
  const rows = await db.any(sql.type(topupRow)`
    SELECT ${TOPUP_COLUMNS} FROM wallet_topups
    WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND wallet_id = ${walletId} ${after}
    ORDER BY id DESC LIMIT ${page.limit}`);
  return [...rows];
}

export interface PixTopupRequest {
  walletId: string;
  amountMinor: bigint;
  attemptId: string | null;
  chargeSeconds: number;
}

/**
 * Opens a pending Pix top-up of a BRL wallet (its `wallet.topup.created` in the same transaction). The same
 * attempt id with the same request finds the first top-up (`replayed`); with another request it is 409.
 */
export async function openPixTopup(
  db: DatabasePool,
  scope: EventScope,
  request: PixTopupRequest,
): Promise<{ topup: TopupRow; replayed: boolean }> {
  const fingerprint = createHash('sha256')
    .update(JSON.stringify(['pix', request.amountMinor.toString()]))
    .digest('hex');
  return db.transaction(async (tx) => {
    const wallet = await getWallet(tx, scope.orgId, scope.projectId, request.walletId);
    if (request.attemptId) {
      const earlier = await tx.maybeOne(sql.type(topupRow)`
        SELECT ${TOPUP_COLUMNS} FROM wallet_topups WHERE wallet_id = ${wallet.id} AND attempt_id = ${request.attemptId}`);
      if (earlier) {
        if (earlier.request_fingerprint !== fingerprint)
          throw new ApiError(
            409,
            'attempt_id_conflict',
            'This attempt_id already opened a top-up with another request',
            { topup_id: earlier.id },
          );
        return { topup: earlier, replayed: true };
      }
    }
    if (wallet.currency !== 'BRL') throw topupMethodUnsupported('pix', wallet.currency);
    if (wallet.status !== 'active')
      throw new ApiError(409, 'wallet_not_active', `The wallet is ${wallet.status}; it takes no top-ups`, {
        status: wallet.status,
      });
    const id = sortableId('wtu');
    // A racing twin with the same attempt id loses on the unique key and is answered as a replay.
    const topup = await tx.maybeOne(sql.type(topupRow)`
      INSERT INTO wallet_topups
        (id, org_id, project_id, environment, wallet_id, method, currency, amount_minor, attempt_id, request_fingerprint, txid, expires_at)
      VALUES (${id}, ${scope.orgId}, ${scope.projectId}, ${scope.environment}, ${wallet.id}, 'pix', 'BRL',
              ${request.amountMinor.toString()}, ${request.attemptId}, ${fingerprint}, ${topupTxid(id)},
              now() + make_interval(secs => ${request.chargeSeconds}))
      ON CONFLICT (wallet_id, attempt_id) DO NOTHING
      RETURNING ${TOPUP_COLUMNS}`);
    if (!topup) throw new ApiError(409, 'attempt_in_progress', 'This attempt_id is opening a top-up now');
    await recordEvent(tx, scope, 'wallet.topup.created', {
      topup_id: topup.id,
      wallet_id: topup.wallet_id,
      method: 'pix',
      currency: 'BRL',
      amount_minor: topup.amount_minor.toString(),
      txid: topup.txid,
      expires_at: topup.expires_at,
    });
    return { topup, replayed: false };
  });
}

export async function recordBrCode(db: CommonQueryMethods, id: string, brCode: string): Promise<void> {
  await db.query(
    sql.unsafe`UPDATE wallet_topups SET br_code = ${brCode} WHERE id = ${id} AND br_code IS NULL`,
  );
}

/** Ends a top-up that was never paid (`expired`) or whose charge was refused (`failed`); nothing is credited. */
export async function endUnpaidTopup(
  db: DatabasePool,
  id: string,
  outcome: 'expired' | 'failed',
  reason: string,
): Promise<void> {
  await db.transaction(async (tx) => {
    const ended = await tx.maybeOne(sql.type(topupRow)`
      UPDATE wallet_topups SET status = ${outcome}, failure_reason = ${reason}, settled_at = now()
      WHERE id = ${id} AND status = 'pending' RETURNING ${TOPUP_COLUMNS}`);
    if (!ended) return;
    const scope = { orgId: ended.org_id, projectId: ended.project_id, environment: ended.environment };
    await recordEvent(tx, scope, 'wallet.topup.expired', {
      topup_id: ended.id,
      wallet_id: ended.wallet_id,
      method: ended.method,
      amount_minor: ended.amount_minor.toString(),
      outcome,
      reason,
    });
  });
}
