// The money simulator: a seeded, replayable run of tenants in both environments through a random mix of
// wallet executes (each fired as several identical requests at once, some of them refused or left unanswered
// by the provider), presentations of earlier attempts, ledger posts of every kind by every credential, and
// worker restarts mid-flight; after every step it checks the ledger's invariants and counts the answers:
// - each wallet's balance and available equal the sums of its entries;
// - no live balance exists without a named operator adjustment (no real arrivals are simulated here);
// - every payment the provider received has exactly one debit, and every attempt's debit one payment;
// - no hold outlives its attempt, and every attempt is terminal (the run waits for each);
// - exactly one fresh answer per attempt, every other one a byte-identical replay;
// - a refused ledger post writes nothing.
// MONEY_SIM_SEED replays a run exactly; MONEY_SIM_STEPS runs it longer.
import { sql } from 'slonik';
import { z } from 'zod';
import type { PaymentsMock } from '../providers/mocks/payments';
import type { HttpResult } from './support/client';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { expectBalanced, fund, newWallet, seeded } from './support/money';

const SEED = Number(process.env.MONEY_SIM_SEED ?? Math.floor(Math.random() * 2 ** 31));
const STEPS = Number(process.env.MONEY_SIM_STEPS ?? 40);

interface SimWallet {
  id: string;
  tenant: Tenant;
  live: boolean;
}

interface Attempt {
  wallet: SimWallet;
  body: Record<string, unknown>;
  answers: HttpResult[];
}

const count = z.object({ n: z.number() });

describe(`the money simulator (seed ${SEED}, replay with MONEY_SIM_SEED=${SEED})`, () => {
  let gw: Gateway;
  let mock: PaymentsMock;
  const wallets: SimWallet[] = [];
  const tenants: Array<{ tenant: Tenant; live: boolean }> = [];
  const attempts: Attempt[] = [];
  beforeAll(async () => {
    console.log(`money simulator seed: ${SEED} (replay with MONEY_SIM_SEED=${SEED})`);
    gw = await startGateway();
    mock = gw.mocks.payments as PaymentsMock;
    for (const live of [false, false, true]) {
      const tenant = await gw.createTenant({ environment: live ? 'live' : 'test' });
      tenants.push({ tenant, live });
      for (let i = 0; i < 2; i++) {
        const id = await newWallet(gw, tenant);
        wallets.push({ id, tenant, live });
        if (live) {
          const adjusted = await operatorPost({ id, tenant, live }, 'fund', 50_000, {
            reason: 'opening balance',
          });
          expect(adjusted.status).toBe(201);
        } else await fund(gw, tenant, id, 50_000);
      }
    }
  });
  afterAll(async () => {
    await gw?.stop();
  });

  function operatorPost(
    wallet: SimWallet,
    kind: string,
    amount: number,
    extra: { user?: string | null; reason?: string } = {},
  ) {
    const user = extra.user === undefined ? 'ops-ana' : extra.user;
    return gw.operator('POST', '/v1/ledger-entries', {
      project: wallet.tenant.projectId,
      ...(user ? { user } : {}),
      body: {
        wallet_id: wallet.id,
        org_id: wallet.tenant.orgId,
        currency: 'BRL',
        amount_minor: String(amount),
        kind,
        ...(extra.reason ? { reason: extra.reason } : {}),
      },
    });
  }

  const entryCount = () =>
    gw.db.oneFirst(sql.type(count)`SELECT count(*)::int AS n FROM wallet_ledger_entries`);

  async function presentUntilTerminal(attempt: Attempt, copies: number): Promise<void> {
    const send = () =>
      gw.request('POST', `/v1/wallets/${attempt.wallet.id}/execute`, {
        key: attempt.wallet.tenant.key,
        body: attempt.body,
      });
    let answers = await Promise.all(Array.from({ length: copies }, send));
    attempt.answers.push(...answers.filter((r) => r.status !== 409));
    for (let i = 0; i < 30 && answers.some((r) => r.status === 409); i++) {
      answers = [await send()];
      attempt.answers.push(...answers.filter((r) => r.status !== 409));
    }
    expect(answers.map((r) => r.status)).not.toContain(409);
  }

  async function checkInvariants(step: string): Promise<void> {
    for (const wallet of wallets) await expectBalanced(gw, wallet.id);
    // Live credits come only from an operator's recorded adjustment here.
    const unexplained = await gw.db.oneFirst(sql.type(count)`
      SELECT count(*)::int AS n FROM wallet_ledger_entries e JOIN projects p ON p.org_id = e.org_id AND p.id = e.project_id
      WHERE p.environment = 'live' AND e.kind IN ('fund', 'reconcile', 'reverse')
        AND NOT EXISTS (SELECT 1 FROM ledger_adjustments a WHERE a.entry_id = e.id)`);
    expect([step, unexplained]).toEqual([step, 0]);
    // No hold outlives its attempt.
    const stray = await gw.db.oneFirst(sql.type(count)`
      SELECT count(*)::int AS n FROM wallet_holds h JOIN spend_attempts a ON a.attempt_id = h.attempt_id
      WHERE h.status = 'open' AND a.status <> 'processing'`);
    expect([step, stray]).toEqual([step, 0]);
    const open = await gw.db.oneFirst(sql.type(count)`
      SELECT count(*)::int AS n FROM spend_attempts WHERE status = 'processing'`);
    expect([step, open]).toEqual([step, 0]);
    for (const attempt of attempts) {
      const id = attempt.body.attempt_id as string;
      const paid = mock.payments().filter((p) => p.reference === id).length;
      const debits = await gw.db.oneFirst(sql.type(count)`
        SELECT count(*)::int AS n FROM wallet_ledger_entries WHERE attempt_id = ${id} AND kind = 'debit'`);
      expect([step, id, paid, debits]).toEqual([step, id, Math.min(paid, 1), paid]);
      const fresh = attempt.answers.filter((r) => r.headers.get('idempotent-replayed') !== 'true');
      expect([step, id, fresh.length]).toEqual([step, id, 1]);
      const replays = new Set(attempt.answers.filter((r) => !fresh.includes(r)).map((r) => r.text));
      expect([step, id, replays.size <= 1]).toEqual([step, id, true]);
    }
  }

  it('keeps every invariant after every step of a random run', async () => {
    const random = seeded(SEED);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
    let restarts = 0;
    for (let n = 0; n < STEPS; n++) {
      const roll = random();
      let step: string;
      if (roll < 0.45) {
        const wallet = pick(wallets.filter((w) => !w.live));
        const id = `att-sim-${SEED}-${n}`;
        const outcome = pick(['succeed', 'succeed', 'succeed', 'refuse', 'timeout'] as const);
        mock.script(id, { outcome });
        const attempt: Attempt = {
          wallet,
          body: {
            amount: (1 + Math.floor(random() * 400)) / 100,
            currency: 'BRL',
            recipient: 'merchant-42',
            description: 'simulated',
            mandate_id: 'mdt_sim',
            attempt_id: id,
          },
          answers: [],
        };
        attempts.push(attempt);
        const copies = 1 + Math.floor(random() * 6);
        step = `${n}: execute ${id} ×${copies} (${outcome})`;
        await presentUntilTerminal(attempt, copies);
      } else if (roll < 0.6 && attempts.length > 0) {
        const attempt = pick(attempts);
        step = `${n}: present ${attempt.body.attempt_id as string} again`;
        await presentUntilTerminal(attempt, 1 + Math.floor(random() * 3));
      } else if (roll < 0.95) {
        const wallet = pick(wallets);
        const kind = pick(['fund', 'hold', 'release', 'debit', 'reconcile', 'reverse', 'fee'] as const);
        const credential = pick([
          'own key',
          'other key',
          'operator',
          'operator without user',
          'operator without reason',
        ] as const);
        const amount = 1 + Math.floor(random() * 500);
        const before = await entryCount();
        let r: HttpResult;
        let expected: number;
        if (credential === 'own key' || credential === 'other key') {
          const caller =
            credential === 'own key'
              ? wallet.tenant
              : pick(tenants.filter((t) => t.tenant !== wallet.tenant)).tenant;
          const callerLive = tenants.find((t) => t.tenant === caller)!.live;
          r = await gw.request('POST', '/v1/ledger-entries', {
            key: caller.key,
            body: {
              wallet_id: wallet.id,
              org_id: caller.orgId,
              currency: 'BRL',
              amount_minor: String(amount),
              kind,
              attempt_id: `att-sim-${SEED}-${n}`,
            },
          });
          expected =
            ['hold', 'release', 'debit'].includes(kind) || callerLive || kind !== 'fund'
              ? 403
              : caller === wallet.tenant
                ? 201
                : 404;
        } else {
          const user = credential === 'operator without user' ? null : undefined;
          const reason = credential === 'operator without reason' ? undefined : 'simulated adjustment';
          r = await operatorPost(wallet, kind, amount, { user, reason });
          expected = ['hold', 'release', 'debit'].includes(kind)
            ? 403
            : credential === 'operator'
              ? 201
              : 400;
          // An adjustment that would overdraw is refused by the ledger, not by the rules.
          if (expected === 201 && r.status === 409) expected = 409;
        }
        step = `${n}: ${credential} posts ${kind} ${amount} to ${wallet.live ? 'live' : 'test'} wallet`;
        expect([step, r.status]).toEqual([step, expected]);
        const written = (await entryCount()) - before;
        expect([step, written]).toEqual([step, r.status === 201 ? 1 : 0]);
      } else {
        step = `${n}: worker stopped mid-flight and started again`;
        if (restarts >= 2) continue;
        restarts++;
        const wallet = pick(wallets.filter((w) => !w.live));
        const id = `att-sim-${SEED}-${n}`;
        const attempt: Attempt = {
          wallet,
          body: {
            amount: 1,
            currency: 'BRL',
            recipient: 'merchant-42',
            description: 'restart',
            mandate_id: 'mdt_sim',
            attempt_id: id,
          },
          answers: [],
        };
        attempts.push(attempt);
        await gw.stopWorker();
        const inFlight = presentUntilTerminal(attempt, 2);
        await gw.startWorker();
        await inFlight;
      }
      await checkInvariants(step);
    }
  }, 600_000);
});
