// A project's clearing account for money that passes through without resting with the gateway: a Pix pull
// through a consumer's `pix-consent` funding source. The pull is recorded as a `fund` (in from the funding
// source) and a `debit` (out to the payee) of the same amount in one transaction, so the account nets to
// zero and the ledger still shows every real-money move with its attempt and the PSP's payment id.
import { sql } from 'slonik';
import { z } from 'zod';
import type { DatabaseTransactionConnection } from '../../runtime/database';
import { recordEvent, type EventScope } from '../events/record';
import { prefixedId } from '../ids';
import { ledgerTransactionSettings, lockSlot, postLocked } from '../ledger/post';

export type ClearingKind = 'pix-consent';

const walletIdRow = z.object({ wallet_id: z.string() });

async function findClearing(
  tx: DatabaseTransactionConnection,
  scope: EventScope,
  kind: ClearingKind,
): Promise<string | null> {
  return tx.maybeOneFirst(sql.type(walletIdRow)`
    SELECT wallet_id FROM clearing_accounts WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND kind = ${kind}`);
}

/** The project's clearing wallet of this kind, opened on first use (two first uses serialize on an advisory lock). */
async function ensureClearing(
  tx: DatabaseTransactionConnection,
  scope: EventScope,
  kind: ClearingKind,
  currency: string,
): Promise<string> {
  const existing = await findClearing(tx, scope, kind);
  if (existing) return existing;
  await tx.query(
    sql.unsafe`SELECT pg_advisory_xact_lock(hashtextextended(${`clearing:${scope.orgId}:${scope.projectId}:${kind}`}, 0))`,
  );
  const raced = await findClearing(tx, scope, kind);
  if (raced) return raced;
  const walletId = prefixedId('wal');
  await tx.query(sql.unsafe`
    INSERT INTO wallets (id, org_id, project_id, agent_id, display_name, currency, metadata)
    VALUES (${walletId}, ${scope.orgId}, ${scope.projectId}, NULL, ${`Clearing (${kind})`}, ${currency}, ${sql.jsonb({ clearing: kind })})`);
  await tx.query(sql.unsafe`
    INSERT INTO clearing_accounts (org_id, project_id, kind, wallet_id) VALUES (${scope.orgId}, ${scope.projectId}, ${kind}, ${walletId})`);
  await recordEvent(tx, scope, 'wallet.created', {
    wallet_id: walletId,
    currency,
    agent_id: null,
    consumer_id: null,
  });
  return walletId;
}

/**
 * Posts a pass-through: money in from the consumer's funding source and out to the payee, both keyed by the
 * attempt. Called inside the settling transaction, which answers a retry from the stored answer, so it runs
 * once per attempt. Returns the debit entry's id.
 */
export async function postPassThrough(
  tx: DatabaseTransactionConnection,
  scope: EventScope,
  kind: ClearingKind,
  move: {
    currency: string;
    amountMinor: bigint;
    mandateId: string;
    attemptId: string;
    externalRef: string;
    consumerId: string;
    agentId?: string;
  },
): Promise<string> {
  const walletId = await ensureClearing(tx, scope, kind, move.currency);
  await ledgerTransactionSettings(tx);
  // Clearing wallets are never frozen or closed by an API call; the slot lock is the ledger's serialization point.
  let slot = await lockSlot(tx, scope, walletId, move.currency);
  const entry = {
    walletId,
    currency: move.currency,
    amount: move.amountMinor,
    mandateId: move.mandateId,
    attemptId: move.attemptId,
    metadata: { rail: 'pix', funding: kind, consumer_id: move.consumerId },
  };
  const pulled = await postLocked(tx, scope, { ...entry, kind: 'fund', externalRef: move.externalRef }, slot);
  slot = pulled.balance;
  const paid = await postLocked(
    tx,
    scope,
    { ...entry, kind: 'debit', externalRef: `${move.externalRef}:out`, agentId: move.agentId ?? null },
    slot,
  );
  return paid.entry.id.toString();
}
