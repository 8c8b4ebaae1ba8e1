// Posts that arrive together share a database statement and commit (group commit). Each one must still
// answer exactly as if it had been alone: its own refusal, its own events, no wait on another wallet's
// lock, and no view of another tenant's wallet.
import { sql } from 'slonik';
import { z } from 'zod';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { adjust, expectBalanced, fund, ledgerSums, newWallet, post, walletSnapshot } from './support/money';

let gw: Gateway;
let t: Tenant;
beforeAll(async () => {
  gw = await startGateway({ worker: false });
  t = await gw.createTenant();
});
afterAll(async () => {
  await gw?.stop();
});

const eventRow = z.object({ type: z.string(), data: z.record(z.unknown()) });
const eventsOf = async (walletId: string) => [
  ...(await gw.db.any(sql.type(eventRow)`
  SELECT type, data FROM events WHERE data->>'wallet_id' = ${walletId} AND type LIKE 'ledger.%' ORDER BY id`)),
];

describe('posts that arrive together', () => {
  it('accept what the balance allows and refuse the rest, each with its own event and the balance after it', async () => {
    const id = await newWallet(gw, t);
    const top = 9_223_372_036_854_775_807n;
    await fund(gw, t, id, top - 100n);
    const results = await Promise.all(Array.from({ length: 20 }, () => post(gw, t, id, 'fund', 10)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(10);
    expect(results.filter((r) => r.status === 409).map((r) => r.body.error.code)).toEqual(
      Array(10).fill('balance_constraint_violation'),
    );
    const accepted = results.filter((r) => r.status === 201);
    // Each accepted post saw its own balance: 90 below the top, 80, ... the top itself, once each.
    expect(
      accepted
        .map((r) => top - BigInt(r.body.balance.available_minor))
        .sort((a: bigint, b: bigint) => Number(a - b)),
    ).toEqual([0n, 10n, 20n, 30n, 40n, 50n, 60n, 70n, 80n, 90n]);
    const events = await eventsOf(id);
    const posted = events.filter((e) => e.type === 'ledger.entry_posted');
    expect(posted).toHaveLength(11);
    for (const r of accepted) {
      expect(posted.map((e) => e.data)).toContainEqual({
        entry_id: r.body.entry.id,
        wallet_id: id,
        currency: 'BRL',
        kind: 'fund',
        amount_minor: '10',
        hold_id: null,
        attempt_id: null,
        external_ref: null,
        balance_minor: r.body.balance.balance_minor,
        available_minor: r.body.balance.available_minor,
      });
    }
    const refused = events.filter((e) => e.type === 'ledger.entry_refused').map((e) => e.data);
    expect(refused).toEqual(
      Array(10).fill({
        wallet_id: id,
        currency: 'BRL',
        kind: 'fund',
        amount_minor: '10',
        attempt_id: null,
        code: 'balance_constraint_violation',
        reason: 'balance_out_of_range',
      }),
    );
    await expectBalanced(gw, id);
  });

  it('accept the operator fees the balance allows and refuse the rest, each with the balance after it', async () => {
    const id = await newWallet(gw, t);
    await fund(gw, t, id, 100);
    const results = await Promise.all(Array.from({ length: 20 }, () => adjust(gw, t, id, 'fee', 10)));
    const accepted = results.filter((r) => r.status === 201);
    expect(accepted).toHaveLength(10);
    expect(results.filter((r) => r.status === 409).map((r) => r.body.error.code)).toEqual(
      Array(10).fill('balance_constraint_violation'),
    );
    expect(
      accepted
        .map((r) => r.body.balance.available_minor)
        .sort((a: string, b: string) => Number(a) - Number(b)),
    ).toEqual(['0', '10', '20', '30', '40', '50', '60', '70', '80', '90']);
    const events = await eventsOf(id);
    expect(events.filter((e) => e.type === 'ledger.entry_posted')).toHaveLength(11);
    expect(
      events
        .filter((e) => e.type === 'ledger.adjustment_posted')
        .map((e) => e.data.entry_id)
        .sort(),
    ).toEqual(accepted.map((r) => r.body.entry.id).sort());
    expect((await walletSnapshot(gw, id)).adjustments).toBe(10);
    await expectBalanced(gw, id);
  });

  it('accept exactly one of several posts with the same external_ref and answer the others ledger_conflict', async () => {
    const id = await newWallet(gw, t);
    const other = await newWallet(gw, t);
    const results = await Promise.all([
      ...Array.from({ length: 5 }, () => post(gw, t, id, 'fund', 25, { external_ref: 'deposit-7' })),
      ...Array.from({ length: 5 }, () => post(gw, t, other, 'fund', 1)),
    ]);
    const sameRef = results.slice(0, 5);
    expect(sameRef.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of sameRef.filter((r) => r.status !== 201)) {
      expect(r.status).toBe(409);
      expect(r.body.error).toMatchObject({
        code: 'ledger_conflict',
        details: { reason: 'external_ref_exists' },
      });
    }
    expect(results.slice(5).map((r) => r.status)).toEqual(Array(5).fill(201));
    expect((await ledgerSums(gw, id))[0].balance).toBe(25n);
    expect((await ledgerSums(gw, other))[0].balance).toBe(5n);
    expect((await eventsOf(id)).filter((e) => e.type === 'ledger.entry_posted')).toHaveLength(1);
  });

  it('never keep a post to one wallet waiting for a lock held on another wallet', async () => {
    const busy = await newWallet(gw, t);
    const free = await newWallet(gw, t);
    await fund(gw, t, busy, 100);
    await fund(gw, t, free, 100);
    let busyDone = false;
    let pending: Promise<{ status: number }> | undefined;
    await gw.db.transaction(async (tx) => {
      await tx.query(sql.unsafe`SELECT 1 FROM wallet_balances WHERE wallet_id = ${busy} FOR UPDATE`);
      pending = post(gw, t, busy, 'fund', 1).then((r) => {
        busyDone = true;
        return r;
      });
      const results = await Promise.all(Array.from({ length: 6 }, () => post(gw, t, free, 'fund', 1)));
      expect(results.map((r) => r.status)).toEqual(Array(6).fill(201));
      // The post to the locked wallet is still waiting for the lock, within its lock wait.
      expect(busyDone).toBe(false);
    });
    expect((await pending!).status).toBe(201);
    expect((await ledgerSums(gw, busy))[0].balance).toBe(101n);
    expect((await ledgerSums(gw, free))[0].balance).toBe(106n);
  });

  it("keep tenants apart: another tenant's posts to a wallet are 404 while its owner's go through", async () => {
    const stranger = await gw.createTenant();
    const id = await newWallet(gw, t);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        i % 2 === 0
          ? post(gw, t, id, 'fund', 10)
          : gw.request('POST', '/v1/ledger-entries', {
              key: stranger.key,
              body: {
                wallet_id: id,
                org_id: stranger.orgId,
                currency: 'BRL',
                amount_minor: '10',
                kind: 'fund',
              },
            }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(
      Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? 201 : 404)),
    );
    expect(results.filter((_, i) => i % 2 === 1).map((r) => r.body.error.code)).toEqual(
      Array(6).fill('not_found'),
    );
    expect((await ledgerSums(gw, id))[0].balance).toBe(60n);
    const foreign = await gw.db.oneFirst(sql.type(z.object({ n: z.number() }))`
      SELECT count(*)::int AS n FROM events WHERE project_id = ${stranger.projectId} AND type LIKE 'ledger.%'`);
    expect(foreign).toBe(0);
  });

  it('refuse a post that would take a balance past the bigint range while the posts that came with it go through', async () => {
    const full = await newWallet(gw, t);
    const other = await newWallet(gw, t);
    await fund(gw, t, full, 9_223_372_036_854_775_000n);
    const [over, ...rest] = await Promise.all([
      post(gw, t, full, 'fund', 1_000),
      ...Array.from({ length: 5 }, () => post(gw, t, other, 'fund', 3)),
    ]);
    expect([over.status, over.body.error.code, over.body.error.details.reason]).toEqual([
      409,
      'balance_constraint_violation',
      'balance_out_of_range',
    ]);
    expect(rest.map((r) => r.status)).toEqual(Array(5).fill(201));
    expect((await ledgerSums(gw, full))[0].balance).toBe(9_223_372_036_854_775_000n);
    expect((await ledgerSums(gw, other))[0].balance).toBe(15n);
    const refused = (await eventsOf(full))
      .filter((e) => e.type === 'ledger.entry_refused')
      .map((e) => e.data.reason);
    expect(refused).toEqual(['balance_out_of_range']);
  });

  it("apply a batch given in any order slot by slot, each slot's posts in the order given, creating a slot on its first post", async () => {
    const a = await newWallet(gw, t);
    const b = await newWallet(gw, t);
    const posts: Array<[string, string, string, bigint]> = [
      [a, 'BRL', 'fund', 10n],
      [b, 'BRL', 'fund', 5n],
      [a, 'USD', 'fund', 7n],
      [a, 'BRL', 'fee', 3n],
      [b, 'BRL', 'fee', 6n],
      [a, 'BRL', 'fee', 7n],
      [b, 'BRL', 'fee', 1n],
    ];
    const row = z.object({
      n: z.number(),
      failed: z.boolean(),
      refusal: z.string().nullable(),
      balance_minor: z.bigint().nullable(),
    });
    const rows = await gw.db.any(sql.type(row)`
      SELECT n, failed, refusal, balance_minor FROM ledger_post(
        ${sql.array(
          posts.map(() => t.orgId),
          'text',
        )}, ${sql.array(
          posts.map(() => t.projectId),
          'text',
        )}, ${sql.array(
          posts.map(() => 'test'),
          'text',
        )},
        ${sql.array(
          posts.map((p) => p[0]),
          'text',
        )}, ${sql.array(
          posts.map((p) => p[1]),
          'text',
        )}, ${sql.array(
          posts.map((p) => p[2]),
          'text',
        )},
        ${sql.array(
          posts.map((p) => p[3].toString()),
          'int8',
        )}, ${sql.array(posts.map(() => null) as unknown as string[], 'text')},
        ${sql.array(posts.map(() => null) as unknown as string[], 'text')}, ${sql.array(posts.map(() => null) as unknown as string[], 'text')},
        ${sql.array(
          posts.map(() => '{}'),
          'jsonb',
        )}, ${sql.array(posts.map(() => null) as unknown as string[], 'text')},
        ${sql.array(posts.flatMap((_, i) => [`evt_order_${a}_${i}`, null]) as string[], 'text')}, false, '5s')`);
    const byPost = [...rows]
      .sort((x, y) => x.n - y.n)
      .map((r) => [r.n, r.failed, r.refusal, r.balance_minor]);
    expect(byPost).toEqual([
      [1, false, null, 10n],
      [2, false, null, 5n],
      [3, false, null, 7n],
      [4, false, null, 7n],
      [5, false, 'balance_constraint_violation', null],
      [6, false, null, 0n],
      [7, false, null, 4n],
    ]);
    expect((await ledgerSums(gw, a)).map((slot) => [slot.currency, slot.balance])).toEqual([
      ['BRL', 0n],
      ['USD', 7n],
    ]);
    expect((await ledgerSums(gw, b)).map((slot) => [slot.currency, slot.balance])).toEqual([['BRL', 4n]]);
    await expectBalanced(gw, a);
    await expectBalanced(gw, b);
  });

  it('refuse posts to a frozen wallet with wallet_not_active, from a key or an operator, and record each refusal', async () => {
    const id = await newWallet(gw, t);
    await fund(gw, t, id, 50);
    await gw.request('POST', `/v1/wallets/${id}/freeze`, { key: t.key });
    const results = await Promise.all(Array.from({ length: 4 }, () => post(gw, t, id, 'fund', 5)));
    expect(results.map((r) => [r.status, r.body.error.code, r.body.error.details.status])).toEqual(
      Array(4).fill([409, 'wallet_not_active', 'frozen']),
    );
    const refused = (await eventsOf(id)).filter((e) => e.type === 'ledger.entry_refused').map((e) => e.data);
    expect(refused).toEqual(
      Array(4).fill({
        wallet_id: id,
        currency: 'BRL',
        kind: 'fund',
        amount_minor: '5',
        attempt_id: null,
        code: 'wallet_not_active',
        reason: null,
      }),
    );
    const adjusted = await Promise.all([adjust(gw, t, id, 'fee', 5), adjust(gw, t, id, 'fund', 5)]);
    expect(adjusted.map((r) => [r.status, r.body.error.code, r.body.error.details.status])).toEqual(
      Array(2).fill([409, 'wallet_not_active', 'frozen']),
    );
    expect((await ledgerSums(gw, id))[0].balance).toBe(50n);
    expect((await walletSnapshot(gw, id)).adjustments).toBe(0);
    const operatorRefusals = (await eventsOf(id))
      .filter(
        (e) => e.type === 'ledger.entry_refused' && e.data.amount_minor === '5' && e.data.kind !== 'fund',
      )
      .map((e) => e.data);
    expect(operatorRefusals).toEqual([
      {
        wallet_id: id,
        currency: 'BRL',
        kind: 'fee',
        amount_minor: '5',
        attempt_id: null,
        code: 'wallet_not_active',
        reason: null,
      },
    ]);
    expect((await eventsOf(id)).filter((e) => e.type === 'ledger.entry_refused')).toHaveLength(6);
  });
});
