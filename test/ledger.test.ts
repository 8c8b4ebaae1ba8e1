// The ledger through HTTP: who may post which kind (a test key funds, an operator adjusts with a reason,
// holds, releases and debits belong to the attempt engine), each kind's effect, refusals that write
// nothing, operator adjustments on record, conflicts and listing. Holds as steps of an attempt are in
// ledger-holds.test.ts.
import { sql } from 'slonik';
import { z } from 'zod';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { connect } from './support/oauth-flow';
import { adjust, expectBalanced, fund, newWallet, post, walletSnapshot } from './support/money';

let gw: Gateway;
let t: Tenant;
beforeAll(async () => {
  gw = await startGateway({ worker: false });
  t = await gw.createTenant();
});
afterAll(async () => {
  await gw?.stop();
});

const balanceOf = async (id: string) =>
  (await gw.request('GET', `/v1/wallets/${id}`, { key: t.key })).body.balances[0];

/** A post with a bearer credential of the tenant (an API key or an OAuth access token). */
const postWith = (tenant: Tenant, bearer: string, walletId: string, kind: string, extra = {}) =>
  gw.request('POST', '/v1/ledger-entries', {
    key: bearer,
    body: { wallet_id: walletId, org_id: tenant.orgId, currency: 'BRL', amount_minor: '10', kind, ...extra },
  });

const eventRow = z.object({ type: z.string(), data: z.record(z.unknown()) });
const eventsOf = async (walletId: string, type: string) =>
  (
    await gw.db.any(sql.type(eventRow)`
    SELECT type, data FROM events WHERE data->>'wallet_id' = ${walletId} AND type = ${type} ORDER BY id`)
  ).map((e) => e.data);

describe('who may post which kind', () => {
  it('lets a test key fund a wallet and an operator reconcile, reverse and take a fee, each with its documented effect', async () => {
    const id = await newWallet(gw, t);
    const steps: Array<['key' | 'operator', string, number, string, string, string]> = [
      ['key', 'fund', 1000, '1000', '1000', '1000'],
      ['operator', 'fee', 50, '-50', '950', '950'],
      ['operator', 'reverse', 50, '50', '1000', '1000'],
      ['operator', 'reconcile', 10, '10', '1010', '1010'],
      ['operator', 'fund', 90, '90', '1100', '1100'],
    ];
    for (const [who, kind, amount, shown, balance, available] of steps) {
      const r = who === 'key' ? await post(gw, t, id, kind, amount) : await adjust(gw, t, id, kind, amount);
      expect([who, kind, r.status]).toEqual([who, kind, 201]);
      expect(r.body.entry).toMatchObject({ kind, amount_minor: shown });
      expect(r.body.balance).toMatchObject({ balance_minor: balance, available_minor: available });
    }
    await expectBalanced(gw, id);
  });

  it('refuses hold, release and debit from every credential with engine_owned_entry and writes nothing', async () => {
    const live = await gw.createTenant({ environment: 'live' });
    const testWallet = await newWallet(gw, t);
    const liveWallet = await newWallet(gw, live);
    await fund(gw, t, testWallet, 1000);
    const before = await walletSnapshot(gw, testWallet);
    const liveBefore = await walletSnapshot(gw, liveWallet);
    for (const kind of ['hold', 'release', 'debit']) {
      const extra = { attempt_id: 'att_by_hand' };
      const answers = {
        'test key': await postWith(t, t.key, testWallet, kind, extra),
        'live key': await postWith(live, live.key, liveWallet, kind, extra),
        operator: await adjust(gw, t, testWallet, kind, 10, extra),
      };
      for (const [who, r] of Object.entries(answers)) {
        expect([kind, who, r.status, r.body.error?.code]).toEqual([kind, who, 403, 'engine_owned_entry']);
      }
    }
    expect(await walletSnapshot(gw, testWallet)).toEqual(before);
    expect(await walletSnapshot(gw, liveWallet)).toEqual(liveBefore);
  });

  it('refuses every post by a key in a live project with live_ledger_locked, while an operator may adjust it', async () => {
    const live = await gw.createTenant({ environment: 'live' });
    const id = await newWallet(gw, live);
    const before = await walletSnapshot(gw, id);
    for (const kind of ['fund', 'reconcile', 'reverse', 'fee']) {
      const r = await postWith(live, live.key, id, kind);
      expect([kind, r.status, r.body.error?.code]).toEqual([kind, 403, 'live_ledger_locked']);
    }
    expect(await walletSnapshot(gw, id)).toEqual(before);
    const adjusted = await adjust(gw, live, id, 'fund', 500, {
      reason: 'Opening balance wired by the tenant',
    });
    expect(adjusted.status).toBe(201);
    expect(adjusted.body.balance).toMatchObject({ balance_minor: '500', available_minor: '500' });
  });

  it('refuses reconcile, reverse and fee from a test key with operator_adjustment_required and writes nothing', async () => {
    const id = await newWallet(gw, t);
    await fund(gw, t, id, 1000);
    const before = await walletSnapshot(gw, id);
    for (const kind of ['reconcile', 'reverse', 'fee']) {
      const r = await post(gw, t, id, kind, 10);
      expect([kind, r.status, r.body.error?.code]).toEqual([kind, 403, 'operator_adjustment_required']);
    }
    expect(await walletSnapshot(gw, id)).toEqual(before);
  });

  it('refuses every post by an OAuth token, in a test or a live project, and writes nothing', async () => {
    const live = await gw.createTenant({ environment: 'live' });
    const wallets: Array<[Tenant, string]> = [
      [t, await newWallet(gw, t)],
      [live, await newWallet(gw, live)],
    ];
    for (const [tenant, id] of wallets) {
      const token = (await connect(gw, tenant.key)).tokens.access_token;
      const before = await walletSnapshot(gw, id);
      for (const kind of ['fund', 'reconcile', 'reverse', 'fee', 'hold', 'release', 'debit']) {
        const r = await postWith(tenant, token, id, kind);
        // The ledger route is beyond every scope a token can be granted.
        expect([kind, r.status, r.body.error?.code]).toEqual([kind, 403, 'route_scope_unmapped']);
      }
      expect(await walletSnapshot(gw, id)).toEqual(before);
    }
  });

  it('refuses an operator adjustment that names no operator (user_id_required) or gives no reason (invalid_body) and writes nothing', async () => {
    const id = await newWallet(gw, t);
    await fund(gw, t, id, 1000);
    const before = await walletSnapshot(gw, id);
    for (const kind of ['fund', 'reconcile', 'reverse', 'fee']) {
      const anonymous = await adjust(gw, t, id, kind, 10, {}, { user: undefined });
      expect([kind, anonymous.status, anonymous.body.error?.code]).toEqual([kind, 400, 'user_id_required']);
      const unexplained = await adjust(gw, t, id, kind, 10, { reason: undefined });
      expect([kind, unexplained.status, unexplained.body.error?.code]).toEqual([kind, 400, 'invalid_body']);
      expect(unexplained.body.error.details.issues).toEqual([expect.objectContaining({ path: '/reason' })]);
      const blank = await adjust(gw, t, id, kind, 10, { reason: '' });
      expect([kind, blank.status, blank.body.error?.code]).toEqual([kind, 400, 'invalid_body']);
    }
    expect(await walletSnapshot(gw, id)).toEqual(before);
  });

  it('keeps who made an operator adjustment and why beside its entry, and publishes ledger.adjustment_posted', async () => {
    const id = await newWallet(gw, t);
    const funded = await fund(gw, t, id, 1000);
    const reason = 'Bank statement of November shows a fee charged twice';
    const r = await adjust(gw, t, id, 'fee', 30, { reason }, { user: 'bruno' });
    expect(r.status).toBe(201);
    const rows = await gw.db.any(
      sql.type(
        z.object({
          entry_id: z.bigint(),
          org_id: z.string(),
          project_id: z.string(),
          wallet_id: z.string(),
          kind: z.string(),
          amount_minor: z.bigint(),
          actor: z.string(),
          reason: z.string(),
        }),
      )`SELECT entry_id, org_id, project_id, wallet_id, kind, amount_minor, actor, reason FROM ledger_adjustments WHERE wallet_id = ${id}`,
    );
    // The key's sandbox top-up is not an operator adjustment; only the fee is recorded.
    expect([...rows]).toEqual([
      {
        entry_id: BigInt(r.body.entry.id),
        org_id: t.orgId,
        project_id: t.projectId,
        wallet_id: id,
        kind: 'fee',
        amount_minor: -30n,
        actor: 'user:bruno',
        reason,
      },
    ]);
    expect(rows[0].entry_id).not.toBe(BigInt(funded.body.entry.id));
    expect(await eventsOf(id, 'ledger.adjustment_posted')).toEqual([
      {
        entry_id: r.body.entry.id,
        wallet_id: id,
        currency: 'BRL',
        kind: 'fee',
        amount_minor: '-30',
        actor: 'user:bruno',
        reason,
        balance_minor: '970',
        available_minor: '970',
      },
    ]);
    expect((await eventsOf(id, 'ledger.entry_posted')).map((e) => e.kind)).toEqual(['fund', 'fee']);
  });

  it('refuses an operator fee beyond the available balance with balance_constraint_violation, writing only its refusal event', async () => {
    const id = await newWallet(gw, t);
    await fund(gw, t, id, 100);
    const before = await walletSnapshot(gw, id);
    const r = await adjust(gw, t, id, 'fee', 101);
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({
      code: 'balance_constraint_violation',
      details: { reason: 'insufficient_available', available_minor: '100' },
    });
    expect(await walletSnapshot(gw, id)).toEqual({ ...before, events: before.events + 1 });
    expect(await eventsOf(id, 'ledger.entry_refused')).toEqual([
      {
        wallet_id: id,
        currency: 'BRL',
        kind: 'fee',
        amount_minor: '101',
        attempt_id: null,
        code: 'balance_constraint_violation',
        reason: 'insufficient_available',
      },
    ]);
    expect((await adjust(gw, t, id, 'fee', 100)).body.balance).toMatchObject({ available_minor: '0' });
  });

  it('answers 404 for a wallet of another tenant, to its keys and to an operator acting in its project, and writes nothing', async () => {
    const stranger = await gw.createTenant();
    const id = await newWallet(gw, t);
    await fund(gw, t, id, 100);
    const before = await walletSnapshot(gw, id);
    const answers = [
      await post(gw, stranger, id, 'fund', 10),
      await postWith(stranger, stranger.key, id, 'fund', { org_id: t.orgId }),
      await adjust(gw, stranger, id, 'fee', 10),
      await adjust(gw, t, id, 'fund', 10, {}, { user: 'ana', project: stranger.projectId }),
    ];
    expect(answers.map((r) => [r.status, r.body.error?.code])).toEqual(Array(4).fill([404, 'not_found']));
    expect(await walletSnapshot(gw, id)).toEqual(before);
  });

  it('refuses a repeated external_ref with ledger_conflict, from a key or an operator', async () => {
    const id = await newWallet(gw, t);
    expect((await post(gw, t, id, 'fund', 10, { external_ref: 'dep-1' })).status).toBe(201);
    const before = await walletSnapshot(gw, id);
    const byKey = await post(gw, t, id, 'fund', 10, { external_ref: 'dep-1' });
    const byOperator = await adjust(gw, t, id, 'reconcile', 10, { external_ref: 'dep-1' });
    for (const r of [byKey, byOperator]) {
      expect(r.status).toBe(409);
      expect(r.body.error).toMatchObject({
        code: 'ledger_conflict',
        details: { reason: 'external_ref_exists' },
      });
    }
    expect(await walletSnapshot(gw, id)).toEqual(before);
  });

  it('refuses malformed posts with invalid_body', async () => {
    const id = await newWallet(gw, t);
    const bodies = [
      { amount_minor: '-5', kind: 'fund' },
      { amount_minor: '1.5', kind: 'fund' },
      { amount_minor: 10, kind: 'fund' },
      { amount_minor: '0', kind: 'fund' },
      { amount_minor: '5', kind: 'mint' },
      { amount_minor: '5', kind: 'fund', currency: 'EUR' },
      { amount_minor: '5', kind: 'fund', reason: '' },
      { amount_minor: '5', kind: 'fund', reason: 'x'.repeat(501) },
      { amount_minor: '9223372036854775808', kind: 'fund' },
    ];
    for (const body of bodies) {
      const r = await gw.request('POST', '/v1/ledger-entries', {
        key: t.key,
        body: { wallet_id: id, org_id: t.orgId, currency: 'BRL', ...body },
      });
      expect([JSON.stringify(body), r.status, r.body.error.code]).toEqual([
        JSON.stringify(body),
        400,
        'invalid_body',
      ]);
    }
    expect(
      (await gw.request('GET', `/v1/wallets/${id}/ledger-entries`, { key: t.key })).body.entries,
    ).toHaveLength(0);
  });

  it('keeps entries append-only in the database', async () => {
    const id = await newWallet(gw, t);
    await fund(gw, t, id, 10);
    await expect(
      gw.db.query(sql.unsafe`UPDATE wallet_ledger_entries SET amount_minor = 999 WHERE wallet_id = ${id}`),
    ).rejects.toThrow(/append-only/);
    await expect(
      gw.db.query(sql.unsafe`DELETE FROM wallet_ledger_entries WHERE wallet_id = ${id}`),
    ).rejects.toThrow(/append-only/);
    await expect(
      gw.db.query(sql.unsafe`UPDATE wallet_balances SET available_minor = -1 WHERE wallet_id = ${id}`),
    ).rejects.toThrow();
  });
});

describe('conflicts', () => {
  it('answers ledger_conflict, never insufficient funds, when the balance row stays locked past the lock wait', async () => {
    const id = await newWallet(gw, t);
    await fund(gw, t, id, 1000);
    let outcomes: Array<{ status: number; code: string; reason: string }> = [];
    await gw.db.transaction(async (tx) => {
      await tx.query(sql.unsafe`SELECT 1 FROM wallet_balances WHERE wallet_id = ${id} FOR UPDATE`);
      const answers = await Promise.all([post(gw, t, id, 'fund', 10), adjust(gw, t, id, 'fee', 10)]);
      outcomes = answers.map((r) => ({
        status: r.status,
        code: r.body.error?.code,
        reason: r.body.error?.details?.reason,
      }));
    });
    expect(outcomes).toEqual(
      Array(2).fill({ status: 409, code: 'ledger_conflict', reason: 'concurrent_write' }),
    );
    expect(await balanceOf(id)).toMatchObject({ balance_minor: '1000', available_minor: '1000' });
    expect((await adjust(gw, t, id, 'fee', 10)).status).toBe(201);
    expect((await post(gw, t, id, 'fund', 10)).status).toBe(201);
  });
});

describe('listing', () => {
  it('pages entries newest first and filters by kind and currency', async () => {
    const id = await newWallet(gw, t);
    await fund(gw, t, id, 100);
    await fund(gw, t, id, 200, 'USD');
    await adjust(gw, t, id, 'fee', 5);
    const all = await gw.request('GET', `/v1/wallets/${id}/ledger-entries?limit=2`, { key: t.key });
    expect(all.body.entries.map((e: { kind: string }) => e.kind)).toEqual(['fee', 'fund']);
    expect(all.body.has_more).toBe(true);
    const next = await gw.request(
      'GET',
      `/v1/wallets/${id}/ledger-entries?limit=2&before=${all.body.next_before}`,
      { key: t.key },
    );
    expect(next.body.entries).toHaveLength(1);
    expect(next.body.has_more).toBe(false);
    const usd = await gw.request('GET', `/v1/wallets/${id}/ledger-entries?currency=USD`, { key: t.key });
    expect(usd.body.entries.map((e: { amount_minor: string }) => e.amount_minor)).toEqual(['200']);
    const fees = await gw.request('GET', `/v1/wallets/${id}/ledger-entries?kind=fee`, { key: t.key });
    expect(fees.body.entries.map((e: { kind: string }) => e.kind)).toEqual(['fee']);
    expect(
      (await gw.request('GET', `/v1/wallets/${id}/ledger-entries?kind=mint`, { key: t.key })).body.error.code,
    ).toBe('invalid_query');
    const wallet = await gw.request('GET', `/v1/wallets/${id}`, { key: t.key });
    expect(wallet.body.balances.map((b: { currency: string }) => b.currency)).toEqual(['BRL', 'USD']);
  });
});
