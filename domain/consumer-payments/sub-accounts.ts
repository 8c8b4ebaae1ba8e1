// The consumer's sub-account: the ledger wallet a consumer's money is held, debited and released in, and
// the account TED money leaves from. One per consumer, created on demand inside the caller's transaction;
// the consumer row lock serializes two first uses so neither creates a second wallet.
import { sql, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import { notFound } from '../errors';
import { recordEvent, type EventScope } from '../events/record';
import { prefixedId } from '../ids';

const subAccountRow = z.object({ wallet_id: z.string(), created_at: z.string() });
export type SubAccountRow = z.infer<typeof subAccountRow>;

export async function findSubAccount(
  db: CommonQueryMethods,
  scope: Pick<EventScope, 'orgId' | 'projectId'>,
  consumerId: string,
): Promise<SubAccountRow | null> {
  return db.maybeOne(sql.type(subAccountRow)`
    SELECT wallet_id, created_at FROM consumer_sub_accounts WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND consumer_id = ${consumerId}`);
}

/** The query of the consumer's sub-account wallet id, for a statement that locks or reads beside it. */
export const subAccountWallet = (
  scope: Pick<EventScope, 'orgId' | 'projectId'>,
  consumerId: string,
): FragmentSqlToken =>
  sql.fragment`SELECT wallet_id FROM consumer_sub_accounts WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND consumer_id = ${consumerId}`;

/** The consumer's sub-account wallet, opened in `currency` when the consumer has none yet. */
export async function ensureSubAccount(
  tx: CommonQueryMethods,
  scope: EventScope,
  consumerId: string,
  currency: string,
): Promise<SubAccountRow & { created: boolean }> {
  const existing = await findSubAccount(tx, scope, consumerId);
  if (existing) return { ...existing, created: false };
  const consumer = await tx.maybeOne(sql.type(z.object({ id: z.string() }))`
    SELECT id FROM consumers WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND id = ${consumerId} FOR UPDATE`);
  if (!consumer) throw notFound('Consumer');
  const raced = await findSubAccount(tx, scope, consumerId);
  if (raced) return { ...raced, created: false };
  const walletId = prefixedId('wal');
  await tx.query(sql.unsafe`
    INSERT INTO wallets (id, org_id, project_id, agent_id, display_name, currency, metadata)
    VALUES (${walletId}, ${scope.orgId}, ${scope.projectId}, NULL, ${`Consumer ${consumerId}`}, ${currency},
            ${sql.jsonb({ consumer_id: consumerId, sub_account: true })})`);
  await tx.query(sql.unsafe`
    INSERT INTO wallet_balances (wallet_id, org_id, project_id, currency) VALUES (${walletId}, ${scope.orgId}, ${scope.projectId}, ${currency})`);
  const row = await tx.one(sql.type(subAccountRow)`
    INSERT INTO consumer_sub_accounts (org_id, project_id, consumer_id, wallet_id) VALUES (${scope.orgId}, ${scope.projectId}, ${consumerId}, ${walletId})
    RETURNING wallet_id, created_at`);
  await recordEvent(tx, scope, 'wallet.created', {
    wallet_id: walletId,
    currency,
    agent_id: null,
    consumer_id: consumerId,
  });
  return { ...row, created: true };
}
