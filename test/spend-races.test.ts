// Racing clients on both spend families, on the time-skipping server and on the real dev server (where
// an update really can race a closing workflow): refusals and completions answer their own status, never
// a 500; racing first presentations of one attempt claim it once (the claim itself is also raced
// directly, where the window is reliably hit); many distinct spends on one mandate
// settle or are refused by the caps without deadlocks or repeated audit steps; replayed refusals carry
// Idempotent-Replayed; policy denials are the spec's flat body; odd input is a 4xx that writes nothing.
import { sql } from 'slonik';
import { z } from 'zod';
import { claimAttempt } from '../domain/consumer-payments/attempts';
import { dispatchKeyOf } from '../domain/consumer-payments/prepare';
import type { SpendRequest } from '../contracts/consumer-spend';
import type { PixPspMock } from '../providers/mocks/pix-psp';
import { MCP_UPSTREAM_AUTH, type McpUpstreamMock } from '../providers/mocks/mcp-upstream';
import { workflowIds } from '../contracts/workflow-ids';
import { newAttempt, pixSpend, readyConsumer } from './support/consumer-spend';
import type { HttpResult } from './support/client';
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';
import { expectBalanced, fund, newWallet } from './support/money';

type Audit = Array<{ timestamp: string; step: string; status: string }>;
type Answer = HttpResult;

/**
 * Presents a request until its attempt has an answer: a wait that runs out on a busy machine is
 * 409 attempt_in_progress with Retry-After, and the contract's answer to it is to present the attempt again.
 */
async function untilAnswered(present: () => Promise<Answer>): Promise<Answer> {
  for (let tries = 0; ; tries++) {
    const answer = await present();
    if (answer.status !== 409 || answer.body.error?.code !== 'attempt_in_progress' || tries >= 20)
      return answer;
    await new Promise((resolve) =>
      setTimeout(resolve, Number(answer.headers.get('retry-after') ?? 1) * 1000),
    );
  }
}

/** Timestamps never go backwards and no step repeats (an attempt is authorized, dispatched and settled once). */
function expectOrderlyAudit(audit: Audit): void {
  const stamps = audit.map((s) => s.timestamp);
  expect(stamps).toEqual([...stamps].sort());
  const names = audit.map((s) => s.step);
  expect(names.filter((name) => name === 'signature')).toHaveLength(1);
  expect(names.filter((name) => name === 'hold').length).toBeLessThanOrEqual(1);
}

describe.each(TEMPORAL_SERVERS)('spend races on the %s Temporal server', (server) => {
  let gw: Gateway;
  let tenant: Tenant;
  let psp: PixPspMock;
  beforeAll(async () => {
    gw = await startGateway({ temporal: server });
    tenant = await gw.createTenant();
    psp = gw.mocks.pix_psp as unknown as PixPspMock;
  });
  afterAll(async () => {
    await gw?.stop();
  });

  const execute = (body: unknown, key = tenant.key) =>
    gw.request('POST', '/v1/consumer-payments/execute', { key, body });
  const attemptRows = async (attemptId: string) =>
    gw.db.oneFirst(
      sql.type(
        z.object({ n: z.number() }),
      )`SELECT count(*)::int AS n FROM consumer_spend_attempts WHERE attempt_id = ${attemptId}`,
    );
  const paymentsFor = (attemptId: string) => psp.payments().filter((p) => p.reference === attemptId);

  it('answers a tampered signature with its 403 on every attempt, first call and replay alike', async () => {
    const c = await readyConsumer(gw, tenant, { fundMinor: 10_000 });
    for (let i = 0; i < 6; i++) {
      const body = pixSpend(c, { amount_minor: 100, signature: 'f'.repeat(64) });
      const first = await execute(body);
      expect([first.status, first.body.error?.code]).toEqual([403, 'mandate_signature_invalid']);
      const again = await execute(body);
      expect([again.status, again.body.error?.code, again.body.idempotent_replay]).toEqual([
        403,
        'mandate_signature_invalid',
        true,
      ]);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
    }
    const balance = (await gw.request('GET', `/v1/wallets/${c.walletId}`, { key: tenant.key })).body
      .balances[0];
    expect(balance).toMatchObject({ balance_minor: '10000', available_minor: '10000' });
  });

  it('refuses every spend of an unfunded consumer with 422 insufficient_funds, holding nothing', async () => {
    const c = await readyConsumer(gw, tenant);
    for (let i = 0; i < 12; i++) {
      const result = await execute(pixSpend(c, { amount_minor: 100 }));
      expect([result.status, result.body.error?.code]).toEqual([422, 'insufficient_funds']);
      expectOrderlyAudit(result.body.audit);
    }
  });

  it('answers racing duplicates of a refused attempt with the refusal, never a 500', async () => {
    const c = await readyConsumer(gw, tenant);
    const bodies = Array.from({ length: 8 }, () => pixSpend(c, { amount_minor: 100 }));
    const results = await Promise.all(
      bodies.flatMap((body) => Array.from({ length: 4 }, () => execute(body))),
    );
    for (const r of results) {
      expect([r.status, r.body.error?.code]).toEqual([422, 'insufficient_funds']);
      // Whichever path found the stored refusal, a replay says so in the header as well as the body.
      expect(r.headers.get('idempotent-replayed')).toBe(r.body.idempotent_replay ? 'true' : null);
    }
  });

  it('claims each new attempt_id once when its first presentations race, and pays it once', async () => {
    const c = await readyConsumer(gw, tenant, { fundMinor: 10_000 });
    const bodies = Array.from({ length: 8 }, () => pixSpend(c, { amount_minor: 150 }));
    const results = await Promise.all(
      bodies.map((body) => Promise.all(Array.from({ length: 12 }, () => untilAnswered(() => execute(body))))),
    );
    for (const [i, body] of bodies.entries()) {
      for (const r of results[i]) expect([r.status, r.body.attempt_id]).toEqual([200, body.attempt_id]);
      expect(new Set(results[i].map((r) => r.body.payment.provider_payment_id)).size).toBe(1);
      expect(await attemptRows(body.attempt_id)).toBe(1);
      expect(paymentsFor(body.attempt_id)).toHaveLength(1);
      // Rule 1: one fresh answer per attempt; every other presentation is a replay, in body and header, same bytes.
      const fresh = results[i].filter((r) => r.body.idempotent_replay === false);
      const replays = results[i].filter((r) => r.body.idempotent_replay === true);
      expect([fresh.length, replays.length]).toEqual([1, 11]);
      for (const r of replays) expect(r.headers.get('idempotent-replayed')).toBe('true');
      expect(fresh[0].headers.get('idempotent-replayed')).toBeNull();
      expect(new Set(replays.map((r) => r.text)).size).toBe(1);
    }
    const balance = (await gw.request('GET', `/v1/wallets/${c.walletId}`, { key: tenant.key })).body
      .balances[0];
    expect(balance).toMatchObject({ balance_minor: '8800', available_minor: '8800' });
  });

  it('answers each of many racing duplicate wallet executes once as fresh and every other as a byte-identical replay', async () => {
    const wallet = await newWallet(gw, tenant);
    await fund(gw, tenant, wallet, 100_000);
    const bodies = Array.from({ length: 20 }, () => ({
      amount: 1.25,
      currency: 'BRL',
      recipient: 'merchant-42',
      description: 'raced',
      mandate_id: 'mdt_test',
      attempt_id: newAttempt(),
    }));
    const results = await Promise.all(
      bodies.map((body) =>
        Promise.all(
          Array.from({ length: 8 }, () =>
            untilAnswered(() =>
              gw.request('POST', `/v1/wallets/${wallet}/execute`, { key: tenant.key, body }),
            ),
          ),
        ),
      ),
    );
    for (const answers of results) {
      for (const r of answers) expect([r.status, r.body.status]).toEqual([200, 'completed']);
      const fresh = answers.filter((r) => r.headers.get('idempotent-replayed') !== 'true');
      expect(fresh).toHaveLength(1);
      expect(new Set(answers.filter((r) => !fresh.includes(r)).map((r) => r.text)).size).toBe(1);
    }
    const balance = (await gw.request('GET', `/v1/wallets/${wallet}`, { key: tenant.key })).body.balances[0];
    expect(balance).toMatchObject({
      balance_minor: String(100_000 - 20 * 125),
      available_minor: String(100_000 - 20 * 125),
    });
  });

  it('keeps a budget shared by several agents exact when their spends race: no more leaves than its cap', async () => {
    const t = await gw.createTenant();
    const budget = await gw.request('POST', '/v1/policies', {
      key: t.key,
      body: {
        name: 'fleet cap',
        type: 'budget',
        agents: ['fleet-*'],
        config: { currency: 'BRL', cap_minor: '1000', window: 'day' },
      },
    });
    expect(budget.status).toBe(201);
    const wallets = await Promise.all(
      Array.from({ length: 6 }, (_, n) => newWallet(gw, t, { agent_id: `fleet-${n}` })),
    );
    for (const wallet of wallets) await fund(gw, t, wallet, 10_000);
    const answers = await Promise.all(
      wallets.map((wallet) =>
        untilAnswered(() =>
          gw.request('POST', `/v1/wallets/${wallet}/execute`, {
            key: t.key,
            body: {
              amount: 3,
              currency: 'BRL',
              recipient: 'merchant-42',
              description: 'fleet',
              mandate_id: 'mdt_test',
              attempt_id: `att_fleet_${wallets[0]}_${wallet}`,
            },
          }),
        ),
      ),
    );
    const paid = answers.filter((r) => r.status === 200 && r.body.status === 'completed');
    const denied = answers.filter((r) => r.status === 403);
    expect([paid.length, denied.length]).toEqual([3, 3]);
    for (const r of denied)
      expect(r.body).toMatchObject({ reason: 'budget_exceeded', ruleType: 'budget', ruleId: budget.body.id });
    let spent = 0;
    for (const wallet of wallets) {
      const balance = (await gw.request('GET', `/v1/wallets/${wallet}`, { key: t.key })).body.balances[0];
      expect(balance.available_minor).toBe(balance.balance_minor);
      spent += 10_000 - Number(balance.balance_minor);
    }
    expect(spent).toBe(900);
  });

  it('counts a spend a budget does not gate against it when racing the calls it does: each allowed call saw every hold before its own', async () => {
    // The budget gates wallet executes only, but counts all of its agents' spend: the paid tool calls it does
    // not gate (their charges' holds) must still serialize with the executes it does.
    const t = await gw.createTenant();
    const upstream = gw.mocks.mcp_upstream as McpUpstreamMock;
    const toolServer = await gw.request('POST', '/v1/mcp-servers', {
      key: t.key,
      body: {
        slug: `budget-race-${server}-${t.projectId.slice(-6).toLowerCase()}`,
        name: 'Budget race',
        upstream_url: upstream.url,
        upstream_auth: MCP_UPSTREAM_AUTH,
        platform_fee_bps: 0,
        tools: [{ tool_name: 'quote', price: '3.00' }],
      },
    });
    expect(toolServer.status).toBe(201);
    const budget = await gw.request('POST', '/v1/policies', {
      key: t.key,
      body: {
        name: 'executes only',
        type: 'budget',
        agents: ['crew-*'],
        tools: ['wallet.execute'],
        config: { currency: 'BRL', cap_minor: '1500', window: 'day' },
      },
    });
    expect(budget.status).toBe(201);
    const crew = await Promise.all(
      Array.from({ length: 8 }, async (_, n) => {
        const agent = `crew-${n}`;
        const wallet = await newWallet(gw, t, { agent_id: agent });
        await fund(gw, t, wallet, 10_000);
        const session = await gw.request('POST', '/v1/sessions', {
          key: t.key,
          body: { servers: [toolServer.body.slug], agent_id: agent },
        });
        return { wallet, session: session.body.id as string };
      }),
    );
    const answers = await Promise.all(
      crew.map(({ wallet, session }, n) =>
        untilAnswered(() =>
          n % 2 === 0
            ? gw.request('POST', `/v1/sessions/${session}/tool-calls`, {
                key: t.key,
                body: {
                  tool: `${toolServer.body.slug}.quote`,
                  arguments: {
                    from: 'A',
                    to: 'B',
                    gateway_payment: { wallet_id: wallet, attempt_id: `att_crew_${n}` },
                  },
                },
              })
            : gw.request('POST', `/v1/wallets/${wallet}/execute`, {
                key: t.key,
                body: {
                  amount: 3,
                  currency: 'BRL',
                  recipient: 'merchant-42',
                  description: 'crew',
                  mandate_id: 'mdt_test',
                  attempt_id: `att_crew_${n}`,
                },
              }),
        ),
      ),
    );
    // The tool calls are not gated by the budget: all four pay.
    for (const r of answers.filter((_, n) => n % 2 === 0)) expect(r.status).toBe(200);
    const executes = answers.filter((_, n) => n % 2 === 1);
    for (const r of executes)
      if (r.status !== 200)
        expect([r.status, r.body.reason, r.body.ruleId]).toEqual([403, 'budget_exceeded', budget.body.id]);
    // Every hold of the crew in the order written; an execute allowed saw all those before its own.
    const holds = await gw.db.any(sql.type(z.object({ attempt_id: z.string(), amount: z.bigint() }))`
      SELECT e.attempt_id, -e.amount_minor AS amount FROM wallet_ledger_entries e JOIN wallets w ON w.id = e.wallet_id
      WHERE w.org_id = ${t.orgId} AND w.project_id = ${t.projectId} AND w.agent_id LIKE 'crew-%' AND e.kind = 'hold'
      ORDER BY e.id`);
    let before = 0n;
    let allowed = 0;
    for (const hold of holds) {
      const n = Number(hold.attempt_id.replace('att_crew_', ''));
      if (n % 2 === 1) {
        allowed++;
        expect([hold.attempt_id, before + hold.amount <= 1500n]).toEqual([hold.attempt_id, true]);
      }
      before += hold.amount;
    }
    expect(allowed).toBe(executes.filter((r) => r.status === 200).length);
  });

  it('lets exactly one of many racing claims of a new attempt_id win, the rest read its row (both unique keys guarded)', async () => {
    // Through HTTP the window between two claims' checks is too narrow to hit reliably on two cores, so
    // the claim the runner makes is raced directly: 6 at once on each of 200 new attempt ids.
    const c = await readyConsumer(gw, tenant);
    for (let i = 0; i < 200; i++) {
      const attemptId = newAttempt();
      const req = {
        orgId: tenant.orgId,
        projectId: tenant.projectId,
        environment: 'test',
        attemptId,
        callerAttempt: true,
        mandateId: c.mandateId,
        rail: 'pix',
        amountMinor: '100',
        currency: 'BRL',
        payeeCanonical: 'pix:email:loja@example.com',
        fingerprint: 'f'.repeat(64),
        workflowId: workflowIds.consumerSpend(tenant.orgId, attemptId),
        dispatchKey: dispatchKeyOf(tenant.orgId, attemptId),
      } as unknown as SpendRequest;
      const claims = await Promise.all(Array.from({ length: 6 }, () => claimAttempt(gw.db, req)));
      expect(claims.filter((claim) => claim.created)).toHaveLength(1);
      for (const claim of claims)
        expect([claim.row.attempt_id, claim.row.dispatch_key]).toEqual([attemptId, req.dispatchKey]);
    }
  });

  it('settles 24 concurrent distinct spends on one mandate, refusing exactly those beyond the cap, with no repeated audit steps', async () => {
    const c = await readyConsumer(gw, tenant, {
      fundMinor: 100_000,
      intent: { cap_minor: 20_000, per_tx_cap_minor: 5_000 },
    });
    const bodies = Array.from({ length: 24 }, () => pixSpend(c, { amount_minor: 1_000 }));
    const results = await Promise.all(bodies.map((b) => execute(b)));
    const settled = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status !== 200);
    expect(settled).toHaveLength(20);
    for (const r of refused) expect([r.status, r.body.error?.code]).toEqual([422, 'cumulative_cap_exceeded']);
    for (const r of results) expectOrderlyAudit(r.body.audit);
    for (const r of settled)
      expect(r.body.audit.filter((s: { step: string }) => s.step === 'debit')).toHaveLength(1);
    const balance = (await gw.request('GET', `/v1/wallets/${c.walletId}`, { key: tenant.key })).body
      .balances[0];
    expect(balance).toMatchObject({ balance_minor: '80000', available_minor: '80000' });
    expect(psp.payments().filter((p) => bodies.some((b) => b.attempt_id === p.reference))).toHaveLength(20);
    await expectBalanced(gw, c.walletId);
  });

  it('answers a policy denial with the flat 403 {reason, ruleType, ruleId}, also when replayed', async () => {
    const t = await gw.createTenant();
    const rule = await gw.request('POST', '/v1/policies', {
      key: t.key,
      body: { name: 'No Pix', type: 'deny', agents: ['agent-*'], tools: ['consumer_payments.pix'] },
    });
    expect(rule.status).toBe(201);
    const c = await readyConsumer(gw, t, { fundMinor: 5_000 });
    const body = pixSpend(c, { amount_minor: 100 });
    const denied = await execute(body, t.key);
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({
      reason: 'denied_by_rule',
      ruleType: 'deny',
      ruleId: rule.body.id,
      attempt_id: body.attempt_id,
      idempotent_replay: false,
    });
    expect(denied.body.error).toBeUndefined();
    const again = await execute(body, t.key);
    expect([
      again.status,
      again.body.reason,
      again.body.idempotent_replay,
      again.headers.get('idempotent-replayed'),
    ]).toEqual([403, 'denied_by_rule', true, 'true']);
  });

  it('refuses odd but schema-valid spends on a registered mandate with their 4xx, moving no money', async () => {
    const c = await readyConsumer(gw, tenant, { fundMinor: 5_000 });
    const { mandate: _mandate, ...base } = pixSpend(c);
    const spend = (id: string, body: unknown) =>
      gw.request('POST', `/v1/consumers/mandates/${encodeURIComponent(id)}/spend`, { key: tenant.key, body });
    const odd: Array<[string, Record<string, unknown>, number, string | null]> = [
      [
        c.mandateId,
        { ...base, attempt_id: newAttempt(), amount_minor: 9_007_199_254_740_991 },
        403,
        'approval_required',
      ],
      ['mdt_unknown', { ...base, attempt_id: newAttempt() }, 404, 'mandate_not_found'],
      ['mdt_ünïcødé_😀', { ...base, attempt_id: newAttempt() }, 404, 'mandate_not_found'],
      [
        c.mandateId,
        { ...base, attempt_id: newAttempt(), purpose: 'Weekly groceries\u0000' },
        400,
        'invalid_body',
      ],
      [
        c.mandateId,
        { ...base, attempt_id: newAttempt(), payee: 'loja\u0000@example.com' },
        400,
        'invalid_body',
      ],
      [c.mandateId, { ...base, attempt_id: newAttempt(), agent_id: 'agent-7\u0000' }, 400, 'invalid_body'],
      [c.mandateId, { ...base, attempt_id: newAttempt(), purpose: '\ud800' }, 400, 'invalid_body'],
      [c.mandateId, { ...base, attempt_id: newAttempt(), payee: '😀😀😀' }, 422, null],
      [c.mandateId, { ...base, attempt_id: undefined, session_id: 'ses_\u0000' }, 400, 'invalid_body'],
      [
        c.mandateId,
        { ...base, attempt_id: newAttempt(), session_id: 'ses_nowhere' },
        422,
        'session_not_found',
      ],
      [
        c.mandateId,
        { ...base, attempt_id: newAttempt(), actor: { type: 'consumer', id: '\u0000' } },
        400,
        'invalid_body',
      ],
      [
        c.mandateId,
        { ...base, attempt_id: newAttempt(), quote: { seller: 'Loja\u0000', price_minor: 2_500 } },
        400,
        'invalid_body',
      ],
      [
        c.mandateId,
        { ...base, attempt_id: newAttempt(), quote: { resource: '\udc00 item' } },
        400,
        'invalid_body',
      ],
      [
        c.mandateId,
        { ...base, attempt_id: newAttempt(), ted: { bank: '\u0000', branch: '1', account: '1' } },
        400,
        'invalid_body',
      ],
    ];
    for (const [id, body, status, code] of odd) {
      const r = await spend(id, body);
      expect([r.status, code === null ? null : r.body.error?.code]).toEqual([status, code]);
    }
    for (const mandate of [
      { ...c.mandate, id: 'mdt_\u0000' },
      { ...c.mandate, id: 'm'.repeat(5_000) },
      JSON.stringify({ ...c.mandate, id: 'z'.repeat(3_000) }),
    ]) {
      const presented = await execute({ ...pixSpend(c), mandate });
      expect([presented.status, presented.body.error?.code]).toEqual([400, 'invalid_body']);
    }
    const balance = (await gw.request('GET', `/v1/wallets/${c.walletId}`, { key: tenant.key })).body
      .balances[0];
    expect(balance).toMatchObject({ balance_minor: '5000', available_minor: '5000' });
  });

  it('refuses wallet execute amounts beyond what a ledger can hold with 400 invalid_body, writing nothing', async () => {
    const wallet = await newWallet(gw, tenant);
    await fund(gw, tenant, wallet, 10_000);
    const ids: string[] = [];
    for (const amount of [
      1e308,
      1e20,
      92233720368547758.08,
      1e17,
      Number.MAX_SAFE_INTEGER + 1,
      0.001,
      1.005,
      5e-324,
    ]) {
      const attemptId = newAttempt();
      ids.push(attemptId);
      const r = await gw.request('POST', `/v1/wallets/${wallet}/execute`, {
        key: tenant.key,
        body: {
          amount,
          currency: 'BRL',
          recipient: 'merchant-42',
          description: 'huge',
          mandate_id: 'mdt_test',
          attempt_id: attemptId,
        },
      });
      expect([amount, r.status, r.body.error?.code]).toEqual([amount, 400, 'invalid_body']);
    }
    // Text jsonb cannot store (half of a surrogate pair) is refused like any other bad input.
    for (const odd of [
      { description: 'half \ud800 pair' },
      { mandate_id: '\udc00' },
      { metadata: { deep: { list: [1, 'x\ud83d'] } } },
    ]) {
      const attemptId = newAttempt();
      ids.push(attemptId);
      const r = await gw.request('POST', `/v1/wallets/${wallet}/execute`, {
        key: tenant.key,
        body: {
          amount: 1,
          currency: 'BRL',
          recipient: 'merchant-42',
          description: 'odd',
          mandate_id: 'mdt_test',
          attempt_id: attemptId,
          ...odd,
        },
      });
      expect([r.status, r.body.error?.code]).toEqual([400, 'invalid_body']);
    }
    const written = await gw.db.oneFirst(
      sql.type(
        z.object({ n: z.number() }),
      )`SELECT count(*)::int AS n FROM spend_attempts WHERE attempt_id = ANY(${sql.array(ids, 'text')})`,
    );
    expect(written).toBe(0);
    // The largest amount the API takes (the largest exact JSON integer, in major units) is judged like any other: this wallet cannot cover it.
    const largest = await gw.request('POST', `/v1/wallets/${wallet}/execute`, {
      key: tenant.key,
      body: {
        amount: Number.MAX_SAFE_INTEGER,
        currency: 'BRL',
        recipient: 'merchant-42',
        description: 'largest',
        mandate_id: 'mdt_test',
        attempt_id: newAttempt(),
      },
    });
    expect([largest.status, largest.body.status, largest.body.wallet?.insufficientFunds]).toEqual([
      200,
      'failed',
      true,
    ]);
    const balance = (await gw.request('GET', `/v1/wallets/${wallet}`, { key: tenant.key })).body.balances[0];
    expect(balance).toMatchObject({ balance_minor: '10000', available_minor: '10000' });
  });
});
