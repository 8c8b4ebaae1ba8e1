// Holds, releases and debits are steps of an attempt: the engine posts them through postLocked for an
// attempt it has claimed, and the database refuses any other owner. Their effects, the refusals that keep a
// hold resolved at most once, the SQL rule itself, and a seeded randomized run of hundreds of concurrent
// steps and adjustments after which every balance equals the sum of its entries.
import { sql } from 'slonik';
import { z } from 'zod';
import { ApiError } from '../domain/errors';
import type { PostResult } from '../domain/ledger/post';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { engineStep, finishAttempt, startAttempt, type EngineKind } from './support/ledger-attempts';
import {
  adjust,
  expectBalanced,
  fund,
  ledgerSums,
  newWallet,
  post,
  seeded,
  walletSnapshot,
} from './support/money';

let gw: Gateway;
let t: Tenant;
beforeAll(async () => {
  gw = await startGateway({ worker: false });
  t = await gw.createTenant();
});
afterAll(async () => {
  await gw?.stop();
});

const shape = (result: PostResult) => ({
  entries: [result.entry, ...(result.release ? [result.release] : [])].map((e) => [e.kind, e.amount_minor]),
  balance: [result.balance.balance_minor, result.balance.available_minor],
});

/** The refusal a step rejected with: its code and reason. */
async function refusalOf(step: Promise<unknown>): Promise<{ code: string; reason: unknown }> {
  const error = await step.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected a ledger refusal, got ${String(error)}`);
  return { code: error.code, reason: error.details?.reason };
}

describe('holds as steps of an attempt', () => {
  it('applies hold, debit and release with their documented effects for the attempt that owns the hold', async () => {
    const id = await newWallet(gw, t);
    await fund(gw, t, id, 1000);
    const a1 = await startAttempt(gw, t, id);
    const a2 = await startAttempt(gw, t, id);
    const steps: Array<[EngineKind, number, string | null, Array<[string, bigint]>, [bigint, bigint]]> = [
      ['hold', 300, a1, [['hold', -300n]], [1000n, 700n]],
      [
        'debit',
        200,
        a1,
        [
          ['debit', -200n],
          ['release', 100n],
        ],
        [800n, 800n],
      ],
      ['hold', 100, a2, [['hold', -100n]], [800n, 700n]],
      ['release', 100, a2, [['release', 100n]], [800n, 800n]],
      // A debit with no hold (a transfer's) takes from both at once.
      ['debit', 10, null, [['debit', -10n]], [790n, 790n]],
    ];
    for (const [kind, amount, attempt, entries, balance] of steps) {
      const result = await engineStep(gw, t, id, kind, amount, attempt);
      expect([kind, shape(result)]).toEqual([kind, { entries, balance }]);
    }
    await expectBalanced(gw, id);
  });

  it('returns the remainder of a partially debited hold as a release entry', async () => {
    const id = await newWallet(gw, t);
    await fund(gw, t, id, 500);
    const attempt = await startAttempt(gw, t, id);
    await engineStep(gw, t, id, 'hold', 400, attempt);
    const debited = await engineStep(gw, t, id, 'debit', 150, attempt);
    expect(shape(debited)).toEqual({
      entries: [
        ['debit', -150n],
        ['release', 250n],
      ],
      balance: [350n, 350n],
    });
    expect(debited.release?.metadata).toEqual({ remainder_of_hold: debited.entry.hold_id });
    await expectBalanced(gw, id);
  });

  it('counts a hold against available the moment it is written, so holds cannot oversubscribe', async () => {
    const id = await newWallet(gw, t);
    await fund(gw, t, id, 5000);
    const attempts = await Promise.all([1, 2, 3, 4, 5, 6].map(() => startAttempt(gw, t, id)));
    const results = await Promise.allSettled(attempts.map((a) => engineStep(gw, t, id, 'hold', 1000, a)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refused.map((r) => (r.reason as ApiError).code)).toEqual(['balance_constraint_violation']);
    expect(await walletSnapshot(gw, id)).toMatchObject({ balance: 5000n, available: 0n });
    await expectBalanced(gw, id);
  });

  it('refuses a hold or a debit beyond the available balance with balance_constraint_violation and writes nothing', async () => {
    const id = await newWallet(gw, t);
    await fund(gw, t, id, 100);
    const attempt = await startAttempt(gw, t, id);
    const before = await walletSnapshot(gw, id);
    expect(await refusalOf(engineStep(gw, t, id, 'hold', 101, attempt))).toEqual({
      code: 'balance_constraint_violation',
      reason: 'insufficient_available',
    });
    expect(await refusalOf(engineStep(gw, t, id, 'debit', 101, null))).toEqual({
      code: 'balance_constraint_violation',
      reason: 'insufficient_available',
    });
    expect(await walletSnapshot(gw, id)).toEqual(before);
  });

  it('resolves a hold at most once: a second debit or release, or a second hold of the attempt, is ledger_conflict', async () => {
    const id = await newWallet(gw, t);
    await fund(gw, t, id, 1000);
    const attempt = await startAttempt(gw, t, id);
    await engineStep(gw, t, id, 'hold', 300, attempt);
    await engineStep(gw, t, id, 'release', 300, attempt);
    const before = await walletSnapshot(gw, id);
    for (const kind of ['release', 'debit'] as const) {
      expect(await refusalOf(engineStep(gw, t, id, kind, 300, attempt))).toEqual({
        code: 'ledger_conflict',
        reason: 'hold_already_resolved',
      });
    }
    expect(await refusalOf(engineStep(gw, t, id, 'hold', 10, attempt))).toEqual({
      code: 'ledger_conflict',
      reason: 'hold_exists',
    });
    expect(await walletSnapshot(gw, id)).toEqual(before);
    expect(before).toMatchObject({ balance: 1000n, available: 1000n });
  });

  it('refuses a debit beyond its hold, a release of the wrong amount, and a release with no hold', async () => {
    const id = await newWallet(gw, t);
    await fund(gw, t, id, 1000);
    const attempt = await startAttempt(gw, t, id);
    const holdless = await startAttempt(gw, t, id);
    await engineStep(gw, t, id, 'hold', 100, attempt);
    const before = await walletSnapshot(gw, id);
    expect(await refusalOf(engineStep(gw, t, id, 'debit', 101, attempt))).toEqual({
      code: 'balance_constraint_violation',
      reason: 'debit_exceeds_hold',
    });
    expect(await refusalOf(engineStep(gw, t, id, 'release', 99, attempt))).toEqual({
      code: 'ledger_conflict',
      reason: 'release_amount_mismatch',
    });
    expect(await refusalOf(engineStep(gw, t, id, 'release', 5, holdless))).toEqual({
      code: 'ledger_conflict',
      reason: 'hold_not_found',
    });
    expect(await walletSnapshot(gw, id)).toEqual(before);
    await expectBalanced(gw, id);
  });
});

describe('who owns a hold, in the database', () => {
  /** A raw insert of one entry, as any code with a connection could write it. */
  const insertEntry = (
    walletId: string,
    kind: string,
    amount: bigint,
    owner: { attemptId?: string | null; holdId?: string | null },
  ) =>
    gw.db.query(sql.unsafe`
      INSERT INTO wallet_ledger_entries
        (wallet_id, org_id, project_id, currency, kind, amount_minor, balance_delta, available_delta, hold_id, attempt_id)
      VALUES (${walletId}, ${t.orgId}, ${t.projectId}, 'BRL', ${kind},
              ${(kind === 'release' ? amount : -amount).toString()}, ${(kind === 'debit' ? -amount : 0n).toString()},
              ${(kind === 'debit' ? 0n : kind === 'hold' ? -amount : amount).toString()},
              ${owner.holdId ?? null}, ${owner.attemptId ?? null})`);

  it('refuses a hold with no attempt, or for an attempt that is not a running attempt of that wallet', async () => {
    const id = await newWallet(gw, t);
    const elsewhere = await newWallet(gw, t);
    await fund(gw, t, id, 1000);
    const othersAttempt = await startAttempt(gw, t, elsewhere);
    const finished = await startAttempt(gw, t, id);
    await finishAttempt(gw, t, finished);
    const before = await walletSnapshot(gw, id);
    await expect(insertEntry(id, 'hold', 100n, {})).rejects.toThrow(/a hold needs the attempt that owns it/);
    for (const attemptId of ['att_never_claimed', othersAttempt, finished]) {
      await expect(insertEntry(id, 'hold', 100n, { attemptId })).rejects.toThrow(
        /is not a running attempt of this wallet/,
      );
    }
    expect(await walletSnapshot(gw, id)).toEqual(before);
  });

  it('refuses a hold by an attempt once it has finished, even through the ledger functions', async () => {
    const id = await newWallet(gw, t);
    await fund(gw, t, id, 1000);
    const attempt = await startAttempt(gw, t, id);
    await finishAttempt(gw, t, attempt);
    const before = await walletSnapshot(gw, id);
    await expect(engineStep(gw, t, id, 'hold', 100, attempt)).rejects.toThrow(
      /is not a running attempt of this wallet/,
    );
    expect(await walletSnapshot(gw, id)).toEqual(before);
    // The same step of a running attempt is accepted.
    const running = await startAttempt(gw, t, id);
    expect(shape(await engineStep(gw, t, id, 'hold', 100, running)).balance).toEqual([1000n, 900n]);
  });

  it("refuses a release or debit that carries another attempt than the hold's owner, while the owner resolves it", async () => {
    const id = await newWallet(gw, t);
    await fund(gw, t, id, 1000);
    const owner = await startAttempt(gw, t, id);
    const intruder = await startAttempt(gw, t, id);
    const holdId = (await engineStep(gw, t, id, 'hold', 300, owner)).entry.hold_id!;
    const before = await walletSnapshot(gw, id);
    for (const kind of ['release', 'debit']) {
      for (const attemptId of [intruder, null]) {
        await expect(insertEntry(id, kind, 300n, { holdId, attemptId })).rejects.toThrow(
          /belongs to another attempt/,
        );
      }
    }
    await expect(insertEntry(id, 'release', 300n, { attemptId: owner })).rejects.toThrow(
      /a release resolves a hold/,
    );
    expect(await walletSnapshot(gw, id)).toEqual(before);
    const released = await engineStep(gw, t, id, 'release', 300, owner);
    expect([released.entry.hold_id, shape(released).balance]).toEqual([holdId, [1000n, 1000n]]);
  });
});

describe('concurrency', () => {
  it('keeps balance equal to the sum of entries under hundreds of concurrent holds, debits, releases, funds and fees', async () => {
    const seed = Number(process.env.LEDGER_SEED ?? Math.floor(Math.random() * 2 ** 31));
    console.log(`ledger concurrency seed: ${seed} (replay with LEDGER_SEED=${seed})`);
    const random = seeded(seed);
    const pick = (n: number) => Math.floor(random() * n);
    const id = await newWallet(gw, t);
    const funded = 50_000n;
    await fund(gw, t, id, funded);

    // Each attempt holds, then resolves by a (possibly partial) debit or a release; some also race a second
    // resolution. Plain debits (engine steps), operator fees and key funds (over HTTP) are interleaved, all
    // fired at once.
    type Outcome = { kind: string; amount: bigint; status: number; code?: string; available?: bigint };
    const outcomes: Outcome[] = [];
    const step = async (kind: EngineKind, amount: bigint, attempt: string | null) => {
      try {
        const result = await engineStep(gw, t, id, kind, amount, attempt);
        outcomes.push({ kind, amount, status: 201, available: result.balance.available_minor });
        return true;
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        outcomes.push({ kind, amount, status: error.status, code: error.code });
        return false;
      }
    };
    const http = async (kind: 'fund' | 'fee', amount: bigint) => {
      const r = kind === 'fund' ? await post(gw, t, id, kind, amount) : await adjust(gw, t, id, kind, amount);
      const available = r.body?.balance?.available_minor;
      outcomes.push({
        kind,
        amount,
        status: r.status,
        code: r.body?.error?.code,
        available: available === undefined ? undefined : BigInt(available),
      });
    };
    const chains: Array<Promise<unknown>> = [];
    for (let i = 0; i < 120; i += 1) {
      const amount = BigInt(1 + pick(900));
      const debit = BigInt(1 + pick(Number(amount)));
      const resolveByDebit = random() < 0.6;
      const race = random() < 0.25;
      chains.push(
        (async () => {
          const attempt = await startAttempt(gw, t, id, `c-${seed}-${i}`);
          if (!(await step('hold', amount, attempt))) return;
          const first = resolveByDebit ? step('debit', debit, attempt) : step('release', amount, attempt);
          const second = race
            ? resolveByDebit
              ? step('release', amount, attempt)
              : step('debit', debit, attempt)
            : undefined;
          await Promise.all([first, second]);
        })(),
      );
    }
    for (let i = 0; i < 100; i += 1) {
      const roll = random();
      const amount = BigInt(1 + pick(400));
      chains.push(roll < 0.4 ? step('debit', amount, null) : http(roll < 0.7 ? 'fee' : 'fund', amount));
    }
    await Promise.all(chains);

    expect(outcomes.length).toBeGreaterThanOrEqual(300);
    for (const outcome of outcomes) {
      if (outcome.status === 201) {
        expect(outcome.available! >= 0n).toBe(true);
        continue;
      }
      expect([outcome.kind, outcome.status]).toEqual([outcome.kind, 409]);
      expect(['balance_constraint_violation', 'ledger_conflict']).toContain(outcome.code);
    }
    await expectBalanced(gw, id);

    // The balance is the funding plus accepted funds minus accepted debits and fees, from the callers' view.
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
    expect(resolutions.length).toBe(outcomes.filter((o) => o.kind === 'hold' && o.status === 201).length);
    for (const row of resolutions) expect(row.n).toBe(1);
  });
});
