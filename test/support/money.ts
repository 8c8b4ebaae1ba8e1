// Test helpers for the money areas: wallets, funding, connections, a seeded random generator, invariants.
import { sql } from 'slonik';
import { z } from 'zod';
import { postEntry } from '../../domain/ledger/post-entry';
import type { GatewayClient } from './client';
import type { Gateway, Tenant } from './harness';

export async function newWallet(gw: Gateway, t: Tenant, body: Record<string, unknown> = {}): Promise<string> {
  const r = await gw.request('POST', '/v1/wallets', {
    key: t.key,
    body: { display_name: 'Ops wallet', currency: 'BRL', ...body },
  });
  if (r.status !== 201) throw new Error(`wallet create failed: ${r.status} ${r.text}`);
  return r.body.id;
}

export async function post(
  gw: GatewayClient,
  t: Tenant,
  walletId: string,
  kind: string,
  amount: bigint | number | string,
  extra: Record<string, unknown> = {},
) {
  return gw.request('POST', '/v1/ledger-entries', {
    key: t.key,
    body: {
      wallet_id: walletId,
      org_id: t.orgId,
      currency: 'BRL',
      amount_minor: String(amount),
      kind,
      ...extra,
    },
  });
}

export async function fund(
  gw: GatewayClient,
  t: Tenant,
  walletId: string,
  amount: bigint | number,
  currency = 'BRL',
) {
  const r = await post(gw, t, walletId, 'fund', amount, { currency });
  if (r.status !== 201) throw new Error(`fund failed: ${r.status} ${r.text}`);
  return r;
}

/**
 * Funds a wallet through the ledger's own post, as setup: API keys of live projects post no `fund` entries,
 * so a live wallet's balance is written here rather than through POST /v1/ledger-entries.
 */
export async function fundDirect(
  gw: Gateway,
  t: Tenant,
  environment: 'live' | 'test',
  walletId: string,
  amount: bigint | number,
  currency = 'BRL',
): Promise<void> {
  await postEntry(
    gw.db,
    { orgId: t.orgId, projectId: t.projectId, environment },
    { walletId, currency, kind: 'fund', amount: BigInt(amount) },
  );
}

/** Provider connections are created by the providers area; tests insert the row a connect call would write. */
export async function insertConnection(
  gw: Gateway,
  t: Tenant,
  rail: string,
  status = 'active',
): Promise<string> {
  const id = `conn_${Math.random().toString(36).slice(2, 14)}`;
  await gw.db.query(
    sql.unsafe`INSERT INTO provider_connections (id, org_id, project_id, provider, rail, status) VALUES (${id}, ${t.orgId}, ${t.projectId}, 'mockbank', ${rail}, ${status})`,
  );
  return id;
}

/** mulberry32: a small seeded generator so a failing randomized run replays from its printed seed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const sums = z.object({
  currency: z.string(),
  balance: z.bigint(),
  available: z.bigint(),
  entry_balance: z.bigint(),
  entry_available: z.bigint(),
  open_holds: z.bigint(),
});

/** For every slot of the wallet: the balance row equals the sum of its entries, and open holds explain the gap. */
export async function ledgerSums(gw: Gateway, walletId: string) {
  const rows = await gw.db.any(sql.type(sums)`
    SELECT b.currency, b.balance_minor AS balance, b.available_minor AS available,
      COALESCE((SELECT sum(balance_delta) FROM wallet_ledger_entries e WHERE e.wallet_id = b.wallet_id AND e.currency = b.currency), 0)::bigint AS entry_balance,
      COALESCE((SELECT sum(available_delta) FROM wallet_ledger_entries e WHERE e.wallet_id = b.wallet_id AND e.currency = b.currency), 0)::bigint AS entry_available,
      COALESCE((SELECT sum(amount_minor) FROM wallet_holds h WHERE h.wallet_id = b.wallet_id AND h.currency = b.currency AND h.status = 'open'), 0)::bigint AS open_holds
    FROM wallet_balances b WHERE b.wallet_id = ${walletId} ORDER BY b.currency`);
  return [...rows];
}

const snapshot = z.object({
  balance: z.bigint(),
  available: z.bigint(),
  entries: z.number(),
  events: z.number(),
  adjustments: z.number(),
});

/** What a post could have changed on a wallet: its BRL slot, its entries, its events and its operator adjustments. */
export async function walletSnapshot(gw: Gateway, walletId: string) {
  return gw.db.one(sql.type(snapshot)`
    SELECT
      COALESCE((SELECT balance_minor FROM wallet_balances WHERE wallet_id = ${walletId} AND currency = 'BRL'), 0)::bigint AS balance,
      COALESCE((SELECT available_minor FROM wallet_balances WHERE wallet_id = ${walletId} AND currency = 'BRL'), 0)::bigint AS available,
      (SELECT count(*)::int FROM wallet_ledger_entries WHERE wallet_id = ${walletId}) AS entries,
      (SELECT count(*)::int FROM events WHERE data->>'wallet_id' = ${walletId}) AS events,
      (SELECT count(*)::int FROM ledger_adjustments WHERE wallet_id = ${walletId}) AS adjustments`);
}

export async function expectBalanced(gw: Gateway, walletId: string): Promise<void> {
  for (const row of await ledgerSums(gw, walletId)) {
    expect(row.entry_balance).toBe(row.balance);
    expect(row.entry_available).toBe(row.available);
    expect(row.balance - row.available).toBe(row.open_holds);
    expect(row.available >= 0n).toBe(true);
  }
}

/** An operator adjustment: the service credential in the tenant's project, naming the operator, with a reason. */
export async function adjust(
  gw: GatewayClient,
  t: Tenant,
  walletId: string,
  kind: string,
  amount: bigint | number | string,
  extra: Record<string, unknown> = {},
  operator: { user?: string; project?: string } = { user: 'ana' },
) {
  return gw.operator('POST', '/v1/ledger-entries', {
    project: operator.project ?? t.projectId,
    user: operator.user,
    body: {
      wallet_id: walletId,
      org_id: t.orgId,
      currency: 'BRL',
      amount_minor: String(amount),
      kind,
      reason: 'Correction agreed with the tenant',
      ...extra,
    },
  });
}
