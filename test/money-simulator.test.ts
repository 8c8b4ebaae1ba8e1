// The money simulator: a seeded, replayable run of tenants in both environments through a random mix of
// wallet executes, consumer Pix spends and paid tool calls (each fired as several identical requests at once,
// some refused or left unanswered by the provider, or failed by the tool's upstream), presentations of earlier
// attempts, ledger posts of every kind by every credential, and worker restarts mid-flight; after every step
// it checks the ledger's invariants and counts the answers:
// - each wallet's balance and available equal the sums of its entries;
// - no live balance exists without a named operator adjustment (no real arrivals are simulated here);
// - every payment a provider received has exactly one debit, and every attempt's debit one payment;
// - every upstream success of a paid tool call has one debit split into tenant share + platform fee, every
//   failure releases its hold, and the tool server's payout and fee wallets hold exactly those splits;
// - no hold or mandate cap reservation outlives its attempt, and every attempt is terminal (the run waits);
// - exactly one fresh answer per attempt, every other one a byte-identical replay;
// - a refused ledger post writes nothing.
// MONEY_SIM_SEED replays a run exactly; MONEY_SIM_STEPS runs it longer.
import { sql } from 'slonik';
import { z } from 'zod';
import { MCP_UPSTREAM_AUTH, type McpUpstreamMock } from '../providers/mocks/mcp-upstream';
import type { PaymentsMock } from '../providers/mocks/payments';
import type { PixPspMock } from '../providers/mocks/pix-psp';
import type { HttpResult } from './support/client';
import { pixSpend, readyConsumer, type ReadyConsumer } from './support/consumer-spend';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { expectBalanced, fund, newWallet, seeded } from './support/money';

const SEED = Number(process.env.MONEY_SIM_SEED ?? Math.floor(Math.random() * 2 ** 31));
const STEPS = Number(process.env.MONEY_SIM_STEPS ?? 80);

interface SimWallet {
  id: string;
  tenant: Tenant;
  live: boolean;
}

type Family = 'wallet' | 'consumer' | 'tool';

interface Attempt {
  family: Family;
  id: string;
  /** One presentation of the attempt, always with the same body. */
  send: () => Promise<HttpResult>;
  answers: HttpResult[];
  /** Tool calls: whether the upstream tool succeeds. */
  upstreamOk?: boolean;
}

const count = z.object({ n: z.number() });
const charge = z.object({
  status: z.string(),
  price_minor: z.bigint(),
  tenant_share_minor: z.bigint().nullable(),
  fee_minor: z.bigint().nullable(),
});
const total = z.object({ n: z.bigint() });
const strays = z.object({
  holds: z.number(),
  consumer_holds: z.number(),
  reservations: z.number(),
  charges: z.number(),
});

describe(`the money simulator (seed ${SEED}, replay with MONEY_SIM_SEED=${SEED})`, () => {
  let gw: Gateway;
  let mock: PaymentsMock;
  let psp: PixPspMock;
  let upstream: McpUpstreamMock;
  let consumer: ReadyConsumer;
  let server: { id: string; slug: string; payout_wallet_id: string; fee_wallet_id: string };
  let session: string;
  const wallets: SimWallet[] = [];
  const tenants: Array<{ tenant: Tenant; live: boolean }> = [];
  const attempts: Attempt[] = [];
  // Wallets no ledger post of the run touches, balanced all the same.
  const engineWallets: string[] = [];
  let previousTimeout: string | undefined;
  beforeAll(async () => {
    console.log(`money simulator seed: ${SEED} (replay with MONEY_SIM_SEED=${SEED})`);
    // A provider that never answers is given up on after 2 s rather than 10 s: the run stays short.
    previousTimeout = process.env.PROVIDER_TIMEOUT_MS;
    process.env.PROVIDER_TIMEOUT_MS = '2000';
    gw = await startGateway();
    mock = gw.mocks.payments as PaymentsMock;
    psp = gw.mocks.pix_psp as unknown as PixPspMock;
    upstream = gw.mocks.mcp_upstream as McpUpstreamMock;
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
    consumer = await readyConsumer(gw, tenants[0].tenant, { fundMinor: 40_000 });
    // A tenant's priced tool server, called from the first test tenant's session.
    const owner = await gw.createTenant();
    const created = await gw.request('POST', '/v1/mcp-servers', {
      key: owner.key,
      body: {
        slug: 'sim-tools',
        name: 'Simulated tools',
        upstream_url: upstream.url,
        upstream_auth: MCP_UPSTREAM_AUTH,
        platform_fee_bps: 1500,
        tools: [
          { tool_name: 'quote', price: '0.37' },
          { tool_name: 'fail', price: '0.50' },
        ],
      },
    });
    expect(created.status).toBe(201);
    server = created.body;
    const opened = await gw.request('POST', '/v1/sessions', {
      key: tenants[0].tenant.key,
      body: { servers: [server.slug] },
    });
    expect(opened.status).toBe(201);
    session = opened.body.id;
    engineWallets.push(consumer.walletId, server.payout_wallet_id, server.fee_wallet_id);
  });
  afterAll(async () => {
    await gw?.stop();
    if (previousTimeout === undefined) delete process.env.PROVIDER_TIMEOUT_MS;
    else process.env.PROVIDER_TIMEOUT_MS = previousTimeout;
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
  const entriesOf = (id: string, kind: string) =>
    gw.db.oneFirst(sql.type(count)`
      SELECT count(*)::int AS n FROM wallet_ledger_entries WHERE attempt_id = ${id} AND kind = ${kind}`);
  const walletSum = (walletId: string) =>
    gw.db.oneFirst(sql.type(total)`
      SELECT COALESCE(sum(balance_delta), 0)::bigint AS n FROM wallet_ledger_entries WHERE wallet_id = ${walletId}`);

  function walletAttempt(wallet: SimWallet, id: string, body: Record<string, unknown>): Attempt {
    return {
      family: 'wallet',
      id,
      send: () => gw.request('POST', `/v1/wallets/${wallet.id}/execute`, { key: wallet.tenant.key, body }),
      answers: [],
    };
  }

  async function presentUntilTerminal(attempt: Attempt, copies: number): Promise<void> {
    let answers = await Promise.all(Array.from({ length: copies }, attempt.send));
    const keep = () => attempt.answers.push(...answers.filter((r) => r.status !== 409));
    keep();
    for (let i = 0; i < 30 && answers.some((r) => r.status === 409); i++) {
      answers = [await attempt.send()];
      keep();
    }
    expect(answers.map((r) => r.status)).not.toContain(409);
  }

  async function checkInvariants(step: string): Promise<void> {
    for (const wallet of wallets) await expectBalanced(gw, wallet.id);
    for (const id of engineWallets) await expectBalanced(gw, id);
    // Live credits come only from an operator's recorded adjustment here.
    const unexplained = await gw.db.oneFirst(sql.type(count)`
      SELECT count(*)::int AS n FROM wallet_ledger_entries e JOIN projects p ON p.org_id = e.org_id AND p.id = e.project_id
      WHERE p.environment = 'live' AND e.kind IN ('fund', 'reconcile', 'reverse')
        AND NOT EXISTS (SELECT 1 FROM ledger_adjustments a WHERE a.entry_id = e.id)`);
    expect([step, unexplained]).toEqual([step, 0]);
    // No hold or cap reservation outlives its attempt, and no attempt is left running.
    const stray = await gw.db.one(sql.type(strays)`
      SELECT
        (SELECT count(*)::int FROM wallet_holds h JOIN spend_attempts a ON a.attempt_id = h.attempt_id
          WHERE h.status = 'open' AND a.status <> 'processing') AS holds,
        (SELECT count(*)::int FROM wallet_holds h JOIN consumer_spend_attempts a ON a.attempt_id = h.attempt_id
          WHERE h.status = 'open' AND a.status IN ('completed', 'failed', 'refused')) AS consumer_holds,
        (SELECT count(*)::int FROM mandate_cap_reservations r JOIN consumer_spend_attempts a
          ON a.org_id = r.org_id AND a.attempt_id = r.attempt_id
          WHERE r.status = 'held' AND a.status IN ('completed', 'failed', 'refused')) AS reservations,
        (SELECT count(*)::int FROM tool_server_charges WHERE status = 'held') AS charges`);
    expect([step, stray]).toEqual([step, { holds: 0, consumer_holds: 0, reservations: 0, charges: 0 }]);
    const open = await gw.db.oneFirst(sql.type(count)`
      SELECT ((SELECT count(*) FROM spend_attempts WHERE status = 'processing')
        + (SELECT count(*) FROM consumer_spend_attempts WHERE status = 'processing'))::int AS n`);
    expect([step, open]).toEqual([step, 0]);
    let toolSuccesses = 0;
    let shares = 0n;
    let fees = 0n;
    for (const attempt of attempts) {
      const { id } = attempt;
      const debits = await entriesOf(id, 'debit');
      if (attempt.family === 'tool') {
        // One debit per upstream success, split in full; a failure releases its hold.
        const row = await gw.db.one(sql.type(charge)`
          SELECT status, price_minor, tenant_share_minor, fee_minor FROM tool_server_charges WHERE attempt_id = ${id}`);
        const releases = await entriesOf(id, 'release');
        const ok = attempt.upstreamOk === true;
        expect([step, id, row.status, debits, releases]).toEqual([
          step,
          id,
          ok ? 'debited' : 'released',
          ok ? 1 : 0,
          ok ? 0 : 1,
        ]);
        if (ok) {
          toolSuccesses++;
          expect([step, id, (row.tenant_share_minor ?? 0n) + (row.fee_minor ?? 0n)]).toEqual([
            step,
            id,
            row.price_minor,
          ]);
          shares += row.tenant_share_minor ?? 0n;
          fees += row.fee_minor ?? 0n;
        }
        const statuses = new Set(attempt.answers.map((r) => `${r.status} ${r.body.status as string}`));
        expect([step, id, statuses.size]).toEqual([step, id, 1]);
        continue;
      }
      const payments = attempt.family === 'wallet' ? mock.payments() : psp.payments();
      const paid = payments.filter((p) => p.reference === id).length;
      expect([step, id, paid, debits]).toEqual([step, id, Math.min(paid, 1), paid]);
      const replayed = (r: HttpResult) => r.headers.get('idempotent-replayed') === 'true';
      const fresh = attempt.answers.filter((r) => !replayed(r));
      const replays = attempt.answers.filter(replayed);
      if (attempt.family === 'consumer') {
        // The body says it too.
        for (const r of fresh) expect([step, id, r.body.idempotent_replay]).toEqual([step, id, false]);
        for (const r of replays) expect([step, id, r.body.idempotent_replay]).toEqual([step, id, true]);
      }
      // A claimant told to come back (409) leaves its fresh answer to the presentation that finds it.
      expect([step, id, fresh.length]).toEqual([step, id, 1]);
      expect([step, id, new Set(replays.map((r) => r.text)).size <= 1]).toEqual([step, id, true]);
    }
    // Every upstream call of a priced tool was one attempt's; the server's wallets hold exactly the splits.
    expect([step, upstream.calls.quote ?? 0]).toEqual([step, toolSuccesses]);
    expect([step, await walletSum(server.payout_wallet_id), await walletSum(server.fee_wallet_id)]).toEqual([
      step,
      shares,
      fees,
    ]);
  }

  it('keeps every invariant after every step of a random run', async () => {
    const random = seeded(SEED);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
    let restarts = 0;
    for (let n = 0; n < STEPS; n++) {
      const roll = random();
      const id = `att-sim-${SEED}-${n}`;
      let step: string;
      if (roll < 0.25) {
        const wallet = pick(wallets.filter((w) => !w.live));
        const outcome = pick(['succeed', 'succeed', 'succeed', 'refuse', 'timeout'] as const);
        mock.script(id, { outcome });
        const attempt = walletAttempt(wallet, id, {
          amount: (1 + Math.floor(random() * 400)) / 100,
          currency: 'BRL',
          recipient: 'merchant-42',
          description: 'simulated',
          mandate_id: 'mdt_sim',
          attempt_id: id,
        });
        attempts.push(attempt);
        const copies = 1 + Math.floor(random() * 6);
        step = `${n}: execute ${id} ×${copies} (${outcome})`;
        await presentUntilTerminal(attempt, copies);
      } else if (roll < 0.43) {
        const outcome = pick(['succeed', 'succeed', 'refuse'] as const);
        psp.script(id, { outcome });
        const body = pixSpend(consumer, { amount_minor: 100 + Math.floor(random() * 900), attempt_id: id });
        const attempt: Attempt = {
          family: 'consumer',
          id,
          send: () =>
            gw.request('POST', '/v1/consumer-payments/execute', { key: tenants[0].tenant.key, body }),
          answers: [],
        };
        attempts.push(attempt);
        const copies = 2 + Math.floor(random() * 5);
        step = `${n}: consumer spend ${id} ×${copies} (${outcome})`;
        await presentUntilTerminal(attempt, copies);
      } else if (roll < 0.58) {
        const wallet = pick(wallets.filter((w) => w.tenant === tenants[0].tenant));
        const upstreamOk = random() < 0.7;
        const body = {
          tool: `${server.slug}.${upstreamOk ? 'quote' : 'fail'}`,
          arguments: {
            ...(upstreamOk ? { from: 'A', to: `B${n}` } : {}),
            gateway_payment: { wallet_id: wallet.id, attempt_id: id },
          },
        };
        const attempt: Attempt = {
          family: 'tool',
          id,
          send: () =>
            gw.request('POST', `/v1/sessions/${session}/tool-calls`, { key: tenants[0].tenant.key, body }),
          answers: [],
          upstreamOk,
        };
        attempts.push(attempt);
        const copies = 1 + Math.floor(random() * 4);
        step = `${n}: tool call ${id} ×${copies} (${upstreamOk ? 'succeeds' : 'fails'} upstream)`;
        await presentUntilTerminal(attempt, copies);
      } else if (roll < 0.68 && attempts.length > 0) {
        const attempt = pick(attempts);
        step = `${n}: present ${attempt.family} ${attempt.id} again`;
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
              attempt_id: id,
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
        const attempt = walletAttempt(wallet, id, {
          amount: 1,
          currency: 'BRL',
          recipient: 'merchant-42',
          description: 'restart',
          mandate_id: 'mdt_sim',
          attempt_id: id,
        });
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
