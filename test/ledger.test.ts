// The ledger through HTTP: effects of each kind, refusals that write nothing, hold resolution, listing,
// and a seeded randomized concurrency run that checks balances equal the sum of entries.
import { sql } from 'slonik';
import { z } from 'zod';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { expectBalanced, fund, ledgerSums, newWallet, post, seeded } from './support/money';

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

describe('posting', () => {
  it("applies each kind's documented effect on balance_minor and available_minor", async () => {
    const id = await newWallet(gw, t);
    const steps: Array<[string, number, Record<string, unknown>, string, string, string]> = [
      ['fund', 1000, {}, '1000', '1000', '1000'],
      ['hold', 300, { attempt_id: 'a1' }, '-300', '1000', '700'],
      ['debit', 200, { attempt_id: 'a1' }, '-200', '800', '800'],
      ['fee', 50, {}, '-50', '750', '750'],
      ['reverse', 50, {}, '50', '800', '800'],
      ['reconcile', 10, {}, '10', '810', '810'],
      ['hold', 100, { attempt_id: 'a2' }, '-100', '810', '710'],
      ['release', 100, { attempt_id: 'a2' }, '100', '810', '810'],
      ['debit', 10, {}, '-10', '800', '800'],
    ];
    for (const [kind, amount, extra, shown, balance, available] of steps) {
      const r = await post(gw, t, id, kind, amount, extra);
      expect([kind, r.status]).toEqual([kind, 201]);
      expect(r.body.entry.amount_minor).toBe(shown);
      expect(r.body.balance).toMatchObject({ balance_minor: balance, available_minor: available });
    }
    await expectBalanced(gw, id);
  });

  it('returns the remainder of a partially debited hold as a release entry', async () => {
    const id = await newWallet(gw, t);
    await fund(gw, t, id, 500);
    await post(gw, t, id, 'hold', 400, { attempt_id: 'p1' });
    const r = await post(gw, t, id, 'debit', 150, { attempt_id: 'p1' });
    expect(r.status).toBe(201);
    expect(
      r.body.entries.map((e: { kind: string; amount_minor: string }) => [e.kind, e.amount_minor]),
    ).toEqual([
      ['debit', '-150'],
      ['release', '250'],
    ]);
    expect(r.body.balance).toMatchObject({ balance_minor: '350', available_minor: '350' });
    await expectBalanced(gw, id);
  });

  it('counts a hold against available the moment it is written, so holds cannot oversubscribe', async () => {
    const id = await newWallet(gw, t);
    await fund(gw, t, id, 5000);
    const results = await Promise.all(
      [1, 2, 3, 4, 5, 6].map((n) => post(gw, t, id, 'hold', 1000, { attempt_id: `six-${n}` })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused.map((r) => r.body.error.code)).toEqual(['balance_constraint_violation']);
    expect(await balanceOf(id)).toMatchObject({ balance_minor: '5000', available_minor: '0' });
  });

  it('refuses a post that would make available negative with balance_constraint_violation and writes nothing', async () => {
    const id = await newWallet(gw, t);
    await fund(gw, t, id, 100);
    for (const [kind, extra] of [
      ['debit', {}],
      ['fee', {}],
      ['hold', { attempt_id: 'big' }],
    ] as const) {
      const r = await post(gw, t, id, kind, 101, extra);
      expect(r.status).toBe(409);
      expect(r.body.error.code).toBe('balance_constraint_violation');
    }
    const list = await gw.request('GET', `/v1/wallets/${id}/ledger-entries`, { key: t.key });
    expect(list.body.entries).toHaveLength(1);
    const refusals = await gw.db.oneFirst(
      sql.type(
        z.object({ n: z.number() }),
      )`SELECT count(*)::int AS n FROM events WHERE type = 'ledger.entry_refused' AND data->>'wallet_id' = ${id}`,
    );
    expect(refusals).toBe(3);
  });

  it('resolves a hold at most once: a second debit or release is ledger_conflict', async () => {
    const id = await newWallet(gw, t);
    await fund(gw, t, id, 1000);
    await post(gw, t, id, 'hold', 300, { attempt_id: 'once' });
    expect((await post(gw, t, id, 'release', 300, { attempt_id: 'once' })).status).toBe(201);
    for (const kind of ['release', 'debit']) {
      const r = await post(gw, t, id, kind, 300, { attempt_id: 'once' });
      expect(r.status).toBe(409);
      expect(r.body.error.code).toBe('ledger_conflict');
      expect(r.body.error.details.reason).toBe('hold_already_resolved');
    }
    const again = await post(gw, t, id, 'hold', 10, { attempt_id: 'once' });
    expect(again.body.error.code).toBe('ledger_conflict');
    expect(await balanceOf(id)).toMatchObject({ balance_minor: '1000', available_minor: '1000' });
  });

  it('refuses a debit beyond its hold, a release of the wrong amount, and a release with no hold', async () => {
    const id = await newWallet(gw, t);
    await fund(gw, t, id, 1000);
    await post(gw, t, id, 'hold', 100, { attempt_id: 'h' });
    expect((await post(gw, t, id, 'debit', 101, { attempt_id: 'h' })).body.error.code).toBe(
      'balance_constraint_violation',
    );
    expect((await post(gw, t, id, 'release', 99, { attempt_id: 'h' })).body.error).toMatchObject({
      code: 'ledger_conflict',
      details: { reason: 'release_amount_mismatch' },
    });
    expect((await post(gw, t, id, 'release', 5, { attempt_id: 'nope' })).body.error).toMatchObject({
      code: 'ledger_conflict',
      details: { reason: 'hold_not_found' },
    });
    await expectBalanced(gw, id);
  });

  it('refuses a repeated external_ref with ledger_conflict', async () => {
    const id = await newWallet(gw, t);
    expect((await post(gw, t, id, 'fund', 10, { external_ref: 'dep-1' })).status).toBe(201);
    const r = await post(gw, t, id, 'fund', 10, { external_ref: 'dep-1' });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('ledger_conflict');
    expect(await balanceOf(id)).toMatchObject({ balance_minor: '10' });
  });

  it('refuses malformed posts with invalid_body', async () => {
    const id = await newWallet(gw, t);
    const bodies = [
      { amount_minor: '-5', kind: 'fund' },
      { amount_minor: '1.5', kind: 'fund' },
      { amount_minor: 10, kind: 'fund' },
      { amount_minor: '0', kind: 'fund' },
      { amount_minor: '5', kind: 'mint' },
      { amount_minor: '5', kind: 'hold' },
      { amount_minor: '5', kind: 'fund', currency: 'EUR' },
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
    let outcome: { status: number; code: string; reason: string } | undefined;
    await gw.db.transaction(async (tx) => {
      await tx.query(sql.unsafe`SELECT 1 FROM wallet_balances WHERE wallet_id = ${id} FOR UPDATE`);
      const r = await post(gw, t, id, 'debit', 10);
      outcome = { status: r.status, code: r.body.error?.code, reason: r.body.error?.details?.reason };
    });
    expect(outcome).toEqual({ status: 409, code: 'ledger_conflict', reason: 'concurrent_write' });
    expect(await balanceOf(id)).toMatchObject({ balance_minor: '1000', available_minor: '1000' });
    expect((await post(gw, t, id, 'debit', 10)).status).toBe(201);
  });
});

describe('listing', () => {
  it('pages entries newest first and filters by kind and currency', async () => {
    const id = await newWallet(gw, t);
    await fund(gw, t, id, 100);
    await fund(gw, t, id, 200, 'USD');
    await post(gw, t, id, 'fee', 5);
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

describe('concurrency', () => {
  it('keeps balance equal to the sum of entries under hundreds of concurrent holds, debits and releases', async () => {
    const seed = Number(process.env.LEDGER_SEED ?? Math.floor(Math.random() * 2 ** 31));
    console.log(`ledger concurrency seed: ${seed} (replay with LEDGER_SEED=${seed})`);
    const random = seeded(seed);
    const pick = (n: number) => Math.floor(random() * n);
    const id = await newWallet(gw, t);
    const funded = 50_000n;
    await fund(gw, t, id, funded);

    // Each attempt holds, then resolves by a (possibly partial) debit or a release; some also race a second
    // resolution. Plain debits, fees and funds are interleaved, all fired at once.
    type Outcome = { kind: string; amount: bigint; status: number; code?: string; available?: string };
    const outcomes: Outcome[] = [];
    const record = async (kind: string, amount: bigint, extra: Record<string, unknown>) => {
      const r = await post(gw, t, id, kind, amount, extra);
      outcomes.push({
        kind,
        amount,
        status: r.status,
        code: r.body?.error?.code,
        available: r.body?.balance?.available_minor,
      });
      return r;
    };
    const chains: Array<Promise<unknown>> = [];
    for (let i = 0; i < 120; i += 1) {
      const attempt = `c-${i}`;
      const amount = BigInt(1 + pick(900));
      const debit = BigInt(1 + pick(Number(amount)));
      const resolveByDebit = random() < 0.6;
      const race = random() < 0.25;
      chains.push(
        (async () => {
          const held = await record('hold', amount, { attempt_id: attempt });
          if (held.status !== 201) return;
          const first = resolveByDebit
            ? record('debit', debit, { attempt_id: attempt })
            : record('release', amount, { attempt_id: attempt });
          const second = race
            ? resolveByDebit
              ? record('release', amount, { attempt_id: attempt })
              : record('debit', debit, { attempt_id: attempt })
            : undefined;
          await Promise.all([first, second]);
        })(),
      );
    }
    for (let i = 0; i < 100; i += 1) {
      const roll = random();
      const amount = BigInt(1 + pick(400));
      chains.push(record(roll < 0.4 ? 'debit' : roll < 0.7 ? 'fee' : 'fund', amount, {}));
    }
    await Promise.all(chains);

    expect(outcomes.length).toBeGreaterThanOrEqual(300);
    for (const outcome of outcomes) {
      if (outcome.status === 201) {
        expect(BigInt(outcome.available!) >= 0n).toBe(true);
        continue;
      }
      expect(outcome.status).toBe(409);
      expect(['balance_constraint_violation', 'ledger_conflict']).toContain(outcome.code);
    }
    await expectBalanced(gw, id);

    // The balance is the funding plus accepted funds minus accepted debits and fees, from the clients' view.
    let expected = funded;
    for (const o of outcomes) {
      if (o.status !== 201) continue;
      if (o.kind === 'fund') expected += o.amount;
      if (o.kind === 'debit' || o.kind === 'fee') expected -= o.amount;
    }
    const [slot] = await ledgerSums(gw, id);
    expect(slot.balance).toBe(expected);
    expect(slot.open_holds).toBe(0n);
    // Every hold resolved exactly once: one debit or one release per hold, never both.
    const resolutions = await gw.db.any(sql.type(z.object({ hold_id: z.string(), n: z.number() }))`
      SELECT hold_id, count(*) FILTER (WHERE kind = 'debit' OR (kind = 'release' AND NOT metadata ? 'remainder_of_hold'))::int AS n
      FROM wallet_ledger_entries WHERE wallet_id = ${id} AND hold_id IS NOT NULL AND kind <> 'hold' GROUP BY hold_id`);
    for (const row of resolutions) expect(row.n).toBe(1);
  });
});
