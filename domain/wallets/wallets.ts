// Wallets of a project: create, list, read with balances, and the status moves freeze, unfreeze and close.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabasePool } from '../../runtime/database';
import { ApiError, notFound } from '../errors';
import type { EventType } from '../../contracts/event-catalog';
import { recordEvent, type EventScope } from '../events/record';
import { prefixedId } from '../ids';
import type { Currency } from '../../contracts/currencies';

export const walletRow = z.object({
  id: z.string(),
  org_id: z.string(),
  project_id: z.string(),
  agent_id: z.string().nullable(),
  display_name: z.string(),
  currency: z.string(),
  status: z.enum(['active', 'frozen', 'closed']),
  metadata: z.record(z.unknown()),
  created_at: z.string(),
  closed_at: z.string().nullable(),
});
export type WalletRow = z.infer<typeof walletRow>;

export const balanceRow = z.object({
  wallet_id: z.string(),
  currency: z.string(),
  balance_minor: z.bigint(),
  available_minor: z.bigint(),
  updated_at: z.string(),
});
export type BalanceRow = z.infer<typeof balanceRow>;

const COLUMNS = sql.fragment`id, org_id, project_id, agent_id, display_name, currency, status, metadata, created_at, closed_at`;

export type WalletStatus = WalletRow['status'];
export type WalletAction = 'freeze' | 'unfreeze' | 'close';

/** The status moves: active ⇄ frozen, and either to closed (final). Closing needs every balance at zero. */
export const WALLET_MOVES: Record<
  WalletAction,
  { from: WalletStatus[]; to: WalletStatus; event: EventType }
> = {
  freeze: { from: ['active'], to: 'frozen', event: 'wallet.frozen' },
  unfreeze: { from: ['frozen'], to: 'active', event: 'wallet.unfrozen' },
  close: { from: ['active', 'frozen'], to: 'closed', event: 'wallet.closed' },
};

export async function createWallet(
  db: DatabasePool,
  scope: EventScope,
  input: {
    displayName: string;
    currency: Currency;
    agentId: string | null;
    metadata: Record<string, unknown>;
  },
): Promise<WalletRow & { balances: BalanceRow[] }> {
  return db.transaction(async (tx) => {
    const wallet = await tx.one(sql.type(walletRow)`
      INSERT INTO wallets (id, org_id, project_id, agent_id, display_name, currency, metadata)
      VALUES (${prefixedId('wal')}, ${scope.orgId}, ${scope.projectId}, ${input.agentId}, ${input.displayName},
              ${input.currency}, ${sql.jsonb(input.metadata as never)})
      RETURNING ${COLUMNS}`);
    const balance = await tx.one(sql.type(balanceRow)`
      INSERT INTO wallet_balances (wallet_id, org_id, project_id, currency)
      VALUES (${wallet.id}, ${scope.orgId}, ${scope.projectId}, ${input.currency})
      RETURNING wallet_id, currency, balance_minor, available_minor, updated_at`);
    await recordEvent(tx, scope, 'wallet.created', {
      wallet_id: wallet.id,
      currency: wallet.currency,
      agent_id: wallet.agent_id,
    });
    return { ...wallet, balances: [balance] };
  });
}

export async function findWallet(
  db: CommonQueryMethods,
  orgId: string,
  projectId: string,
  id: string,
): Promise<WalletRow | null> {
  return db.maybeOne(sql.type(walletRow)`
    SELECT ${COLUMNS} FROM wallets WHERE org_id = ${orgId} AND project_id = ${projectId} AND id = ${id}`);
}

export async function getWallet(
  db: CommonQueryMethods,
  orgId: string,
  projectId: string,
  id: string,
): Promise<WalletRow> {
  const wallet = await findWallet(db, orgId, projectId, id);
  if (!wallet) throw notFound('Wallet');
  return wallet;
}

export async function walletBalances(
  db: CommonQueryMethods,
  orgId: string,
  projectId: string,
  walletIds: string[],
): Promise<BalanceRow[]> {
  if (walletIds.length === 0) return [];
  const rows = await db.any(sql.type(balanceRow)`
    SELECT wallet_id, currency, balance_minor, available_minor, updated_at FROM wallet_balances
    WHERE org_id = ${orgId} AND project_id = ${projectId} AND wallet_id = ANY(${sql.array(walletIds, 'text')})
    ORDER BY wallet_id, currency`);
  return [...rows];
}

export async function listWallets(
  db: CommonQueryMethods,
  orgId: string,
  projectId: string,
  filter: { status?: WalletStatus; agentId?: string; limit: number; startingAfter?: string },
): Promise<WalletRow[]> {
  const where = [sql.fragment`org_id = ${orgId}`, sql.fragment`project_id = ${projectId}`];
  if (filter.status) where.push(sql.fragment`status = ${filter.status}`);
  if (filter.agentId) where.push(sql.fragment`agent_id = ${filter.agentId}`);
  if (filter.startingAfter) where.push(sql.fragment`id < ${filter.startingAfter}`);
  const rows = await db.any(sql.type(walletRow)`
    SELECT ${COLUMNS} FROM wallets WHERE ${sql.join(where, sql.fragment` AND `)}
    ORDER BY id DESC LIMIT ${filter.limit}`);
  return [...rows];
}

/** Applies a status move under the wallet's row lock, which waits for in-flight ledger posts to finish. */
export async function moveWallet(
  db: DatabasePool,
  scope: EventScope,
  id: string,
  action: WalletAction,
): Promise<WalletRow> {
  const move = WALLET_MOVES[action];
  return db.transaction(async (tx) => {
    const wallet = await tx.maybeOne(sql.type(walletRow)`
      SELECT ${COLUMNS} FROM wallets WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND id = ${id} FOR UPDATE`);
    if (!wallet) throw notFound('Wallet');
    if (!move.from.includes(wallet.status)) {
      throw new ApiError(
        409,
        'invalid_transition',
        `A ${wallet.status} wallet cannot be moved by ${action}`,
        { status: wallet.status, action },
      );
    }
    if (action === 'close') {
      const nonzero = await tx.exists(sql.unsafe`
        SELECT 1 FROM wallet_balances WHERE wallet_id = ${id} AND (balance_minor <> 0 OR available_minor <> 0)`);
      if (nonzero)
        throw new ApiError(
          409,
          'wallet_not_empty',
          'Only a wallet whose balances are all zero can be closed; move the money out first',
        );
    }
    const moved = await tx.one(sql.type(walletRow)`
      UPDATE wallets SET status = ${move.to}, closed_at = ${move.to === 'closed' ? sql.fragment`now()` : sql.fragment`NULL`}
      WHERE id = ${id} RETURNING ${COLUMNS}`);
    await recordEvent(tx, scope, move.event, { wallet_id: id, from: wallet.status, to: move.to });
    return moved;
  });
}
