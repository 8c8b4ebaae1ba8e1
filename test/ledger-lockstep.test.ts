// The ledger rules live twice: effectOf in TypeScript (documented, unit-tested) and ledger_effect in the
// database, which ledger_post applies to every key's post over HTTP. Every kind, amount and hold state goes
// through both here: function against function, then every writer (the attempt engine's steps, a test key's
// fund and an operator's adjustments over HTTP, and ledger_post run on its own) against effectOf, so a
// change to one that the other does not share fails this file.
import { sql } from 'slonik';
import { z } from 'zod';
import { ApiError } from '../domain/errors';
import { ENTRY_KINDS, type EntryKind } from '../contracts/ledger-entry-kinds';
import { effectOf, isRefusal, type OpenHold } from '../domain/ledger/effects';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { engineStep, startAttempt } from './support/ledger-attempts';
import { adjust, expectBalanced, fund, newWallet, post } from './support/money';

let gw: Gateway;
let t: Tenant;
beforeAll(async () => {
  gw = await startGateway({ worker: false });
  t = await gw.createTenant();
});
afterAll(async () => {
  await gw?.stop();
});

type HoldState = 'none' | OpenHold['status'];
const HOLD_STATES: HoldState[] = ['none', 'open', 'debited', 'released'];
const HOLD_AMOUNT = 300n;
const holdOf = (state: HoldState): OpenHold | null =>
  state === 'none' ? null : { id: 'hld_case', amount: HOLD_AMOUNT, status: state };

/** What either side says about one post: a refusal code and reason, or the four numbers of the effect. */
function expected(kind: EntryKind, amount: bigint, available: bigint, state: HoldState): string {
  const effect = effectOf(kind, amount, { balance: 1000n, available }, holdOf(state));
  if (isRefusal(effect)) return `${effect.code}/${effect.reason}`;
  return [effect.amount, effect.balanceDelta, effect.availableDelta, effect.releaseRemainder].join(' ');
}

const effectRow = z.object({
  n: z.number(),
  refusal: z.string().nullable(),
  reason: z.string().nullable(),
  amount: z.bigint().nullable(),
  balance_delta: z.bigint().nullable(),
  available_delta: z.bigint().nullable(),
  release_remainder: z.bigint().nullable(),
});

describe('ledger_effect and effectOf', () => {
  it('agree on every kind, amount, available balance and hold state', async () => {
    const cases: Array<{ kind: EntryKind; amount: bigint; available: bigint; state: HoldState }> = [];
    for (const kind of ENTRY_KINDS) {
      for (const amount of [1n, 120n, 299n, 300n, 301n, 600n, 601n, 5000n]) {
        for (const available of [0n, 300n, 600n]) {
          for (const state of HOLD_STATES) cases.push({ kind, amount, available, state });
        }
      }
    }
    const rows = await gw.db.any(sql.type(effectRow)`
      SELECT c.n::int AS n, e.* FROM unnest(
        ${sql.array(
          cases.map((c) => c.kind),
          'text',
        )}, ${sql.array(
          cases.map((c) => c.amount.toString()),
          'int8',
        )},
        ${sql.array(
          cases.map((c) => c.available.toString()),
          'int8',
        )}, ${sql.array(cases.map((c) => (c.state === 'none' ? null : c.state)) as string[], 'text')}
      ) WITH ORDINALITY AS c (kind, amount, available, hold_status, n),
      LATERAL ledger_effect(c.kind, c.amount, c.available, CASE WHEN c.hold_status IS NOT NULL THEN ${HOLD_AMOUNT.toString()}::bigint END, c.hold_status) e
      ORDER BY c.n`);
    expect(rows).toHaveLength(cases.length);
    const database = rows.map((row) =>
      row.refusal
        ? `${row.refusal}/${row.reason}`
        : [row.amount, row.balance_delta, row.available_delta, row.release_remainder].join(' '),
    );
    const typescript = cases.map((c) => expected(c.kind, c.amount, c.available, c.state));
    const label = (i: number) =>
      `${cases[i].kind} ${cases[i].amount} (available ${cases[i].available}, hold ${cases[i].state})`;
    expect(database.map((outcome, i) => `${label(i)}: ${outcome}`)).toEqual(
      typescript.map((outcome, i) => `${label(i)}: ${outcome}`),
    );
    // The table reaches every refusal both sides know.
    expect(new Set(typescript.filter((o) => o.includes('/')))).toEqual(
      new Set([
        'balance_constraint_violation/insufficient_available',
        'balance_constraint_violation/debit_exceeds_hold',
        'ledger_conflict/hold_exists',
        'ledger_conflict/hold_not_found',
        'ledger_conflict/hold_already_resolved',
        'ledger_conflict/release_amount_mismatch',
      ]),
    );
  });
});

/**
 * Brings a new wallet's BRL slot to balance 1000, available 600, with the hold of its attempt `case` (300) in
 * the given state; a hold of its attempt `other` takes up the rest of the gap. Both are running attempts.
 */
async function walletWith(state: HoldState): Promise<{ id: string; caseAttempt: string }> {
  const id = await newWallet(gw, t);
  const caseAttempt = await startAttempt(gw, t, id, `case-${id}`);
  const other = await startAttempt(gw, t, id, `other-${id}`);
  const steps: Array<['fund' | 'hold' | 'release' | 'debit', bigint, string?]> = {
    none: [
      ['fund', 1000n],
      ['hold', 400n, other],
    ],
    open: [
      ['fund', 1000n],
      ['hold', 100n, other],
      ['hold', 300n, caseAttempt],
    ],
    debited: [
      ['fund', 1300n],
      ['hold', 300n, caseAttempt],
      ['debit', 300n, caseAttempt],
      ['hold', 400n, other],
    ],
    released: [
      ['fund', 1000n],
      ['hold', 300n, caseAttempt],
      ['release', 300n, caseAttempt],
      ['hold', 400n, other],
    ],
  }[state] as Array<['fund' | 'hold' | 'release' | 'debit', bigint, string?]>;
  for (const [kind, amount, attempt] of steps) {
    if (kind === 'fund') await fund(gw, t, id, amount);
    else await engineStep(gw, t, id, kind, amount, attempt!);
  }
  return { id, caseAttempt };
}

const CASES: Array<{ kind: EntryKind; amount: bigint; state: HoldState }> = [];
for (const kind of ENTRY_KINDS) {
  for (const amount of [120n, 300n, 301n, 601n]) {
    for (const state of HOLD_STATES) CASES.push({ kind, amount, state });
  }
}
const label = (i: number) => `${CASES[i].kind} ${CASES[i].amount} (hold ${CASES[i].state})`;

/** What a post answered: its refusal, or its entries (kind and signed amount) in order. */
type Answer = { refusal: string } | { entries: Array<{ kind: string; amount_minor: string }> };

/**
 * Runs every case on a wallet of its own through `poster` and returns, per case, what effectOf would
 * have said of it as seen from the outside: the entry's amount and the balance changes, or the refusal.
 */
async function outcomesOf(
  poster: (walletId: string, attempt: string | null, kind: EntryKind, amount: bigint) => Promise<Answer>,
): Promise<string[]> {
  const outcomes: string[] = [];
  const run = async (i: number) => {
    const { kind, amount, state } = CASES[i];
    const { id, caseAttempt } = await walletWith(state);
    const answer = await poster(id, ENGINE_KINDS.has(kind) ? caseAttempt : null, kind, amount);
    const after = (await gw.request('GET', `/v1/wallets/${id}`, { key: t.key })).body.balances[0];
    const balanceDelta = BigInt(after.balance_minor) - 1000n;
    const availableDelta = BigInt(after.available_minor) - 600n;
    if ('refusal' in answer) {
      // A refusal writes nothing: the balance is where it was.
      outcomes[i] =
        `${answer.refusal}${balanceDelta === 0n && availableDelta === 0n ? '' : ' (balance moved)'}`;
      return;
    }
    const [entry, release] = answer.entries;
    const remainder = release ? BigInt(release.amount_minor) : 0n;
    expect(release ? release.kind : 'release').toBe('release');
    outcomes[i] = [BigInt(entry.amount_minor), balanceDelta, availableDelta - remainder, remainder].join(' ');
    await expectBalanced(gw, id);
  };
  for (let i = 0; i < CASES.length; i += 8)
    await Promise.all(CASES.slice(i, i + 8).map((_, j) => run(i + j)));
  return outcomes.map((outcome, i) => `${label(i)}: ${outcome}`);
}

const effectOutcomes = () => CASES.map((c, i) => `${label(i)}: ${expected(c.kind, c.amount, 600n, c.state)}`);
const ENGINE_KINDS: ReadonlySet<EntryKind> = new Set(['hold', 'release', 'debit']);

describe('the ledger writers and effectOf', () => {
  it("agree through every writer: the attempt engine's steps, a test key's fund and an operator's adjustments over HTTP, on the entries, balance changes and refusals of every kind against every hold state", async () => {
    const outcomes = await outcomesOf(async (id, attempt, kind, amount) => {
      if (attempt) {
        try {
          const posted = await engineStep(gw, t, id, kind as 'hold' | 'release' | 'debit', amount, attempt);
          const entries = posted.release ? [posted.entry, posted.release] : [posted.entry];
          return { entries: entries.map((e) => ({ kind: e.kind, amount_minor: e.amount_minor.toString() })) };
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          return { refusal: `${error.code}/${String(error.details?.reason)}` };
        }
      }
      const r = kind === 'fund' ? await post(gw, t, id, kind, amount) : await adjust(gw, t, id, kind, amount);
      return r.status === 201
        ? { entries: r.body.entries }
        : { refusal: `${r.body.error.code}/${r.body.error.details.reason}` };
    });
    expect(outcomes).toEqual(effectOutcomes());
  });

  it('agree when a post runs on its own, waiting for its locks', async () => {
    const row = z.object({
      refusal: z.string().nullable(),
      reason: z.string().nullable(),
      kind: z.string().nullable(),
      amount_minor: z.bigint().nullable(),
    });
    const outcomes = await outcomesOf(async (id, attempt, kind, amount) => {
      const rows = await gw.db.any(sql.type(row)`
        SELECT refusal, reason, kind, amount_minor FROM ledger_post(
          ${sql.array([t.orgId], 'text')}, ${sql.array([t.projectId], 'text')}, ARRAY['test'], ${sql.array([id], 'text')}, ARRAY['BRL'],
          ${sql.array([kind], 'text')}, ${sql.array([amount.toString()], 'int8')}, ARRAY[NULL::text], ${sql.array([attempt] as string[], 'text')},
          ARRAY[NULL::text], ARRAY['{}'::jsonb], ARRAY['hld_lockstep_' || ${id}], ARRAY['evt_lockstep_' || ${id}, 'evt_lockstep_r_' || ${id}], true, '5s')`);
      if (rows[0].refusal) return { refusal: `${rows[0].refusal}/${rows[0].reason}` };
      return { entries: rows.map((r) => ({ kind: r.kind!, amount_minor: r.amount_minor!.toString() })) };
    });
    expect(outcomes).toEqual(effectOutcomes());
  });
});
