// Policies through HTTP: CRUD, per-type config validation, reorder, decisions with the flat 403 body,
// budgets counted from the ledger, rate limits, time windows, the evaluation log and tenant isolation.
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { engineStep, startAttempt } from './support/ledger-attempts';
import { adjust, fund, newWallet } from './support/money';

let gw: Gateway;
let t: Tenant;
beforeAll(async () => {
  gw = await startGateway({ worker: false });
  t = await gw.createTenant();
});
afterAll(async () => {
  await gw?.stop();
});

const create = (tenant: Tenant, body: Record<string, unknown>) =>
  gw.request('POST', '/v1/policies', { key: tenant.key, body });
const check = (tenant: Tenant, body: Record<string, unknown>) =>
  gw.request('POST', '/v1/policies/evaluations', { key: tenant.key, body });

describe('policy CRUD', () => {
  it('creates a rule with defaults, appends it to the order, reads, updates and deletes it', async () => {
    const tenant = await gw.createTenant();
    const a = await create(tenant, { name: 'block refunds', type: 'deny', tools: ['refund.*'] });
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({
      name: 'block refunds',
      type: 'deny',
      agents: [],
      tools: ['refund.*'],
      enabled: true,
      order: 0,
      config: {},
    });
    expect(a.body).toHaveProperty('createdAt');
    const b = await create(tenant, {
      name: 'cap',
      type: 'budget',
      config: { currency: 'BRL', cap_minor: '5000', window: 'day' },
    });
    expect(b.body.order).toBe(1);
    expect((await gw.request('GET', `/v1/policies/${a.body.id}`, { key: tenant.key })).body.name).toBe(
      'block refunds',
    );
    const patched = await gw.request('PATCH', `/v1/policies/${b.body.id}`, {
      key: tenant.key,
      body: { enabled: false, config: { currency: 'USD', cap_minor: '10', window: 'hour' } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      enabled: false,
      config: { currency: 'USD', cap_minor: '10', window: 'hour' },
    });
    expect((await gw.request('DELETE', `/v1/policies/${a.body.id}`, { key: tenant.key })).body).toEqual({
      id: a.body.id,
      deleted: true,
    });
    expect((await gw.request('GET', `/v1/policies/${a.body.id}`, { key: tenant.key })).status).toBe(404);
    expect(
      (await gw.request('GET', '/v1/policies', { key: tenant.key })).body.policies.map(
        (p: { id: string }) => p.id,
      ),
    ).toEqual([b.body.id]);
  });

  it.each([
    [{ name: '', type: 'deny' }],
    [{ name: 'x', type: 'teleport' }],
    [{ name: 'x', type: 'budget', config: { currency: 'BRL', cap_minor: '10' } }],
    [{ name: 'x', type: 'budget', config: { currency: 'BRL', cap_minor: 10, window: 'day' } }],
    [{ name: 'x', type: 'rate-limit', config: { max_calls: 0, window_seconds: 60 } }],
    [
      {
        name: 'x',
        type: 'time-window',
        config: { timezone: 'Mars/Olympus', days: ['mon'], start: '09:00', end: '17:00' },
      },
    ],
    [
      {
        name: 'x',
        type: 'time-window',
        config: { timezone: 'UTC', days: ['funday'], start: '09:00', end: '17:00' },
      },
    ],
    [
      {
        name: 'x',
        type: 'time-window',
        config: { timezone: 'UTC', days: ['mon'], start: '9am', end: '17:00' },
      },
    ],
    [{ name: 'x', type: 'approval-required', config: { above_minor: '100' } }],
    [{ name: 'x', type: 'deny', tools: [''] }],
  ])('refuses %j with invalid_body and creates nothing', async (body) => {
    const tenant = await gw.createTenant();
    const r = await create(tenant, body);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_body');
    expect((await gw.request('GET', '/v1/policies', { key: tenant.key })).body.policies).toHaveLength(0);
  });

  it('validates a patched config against the stored type', async () => {
    const tenant = await gw.createTenant();
    const p = await create(tenant, {
      name: 'rl',
      type: 'rate-limit',
      config: { max_calls: 5, window_seconds: 60 },
    });
    const r = await gw.request('PATCH', `/v1/policies/${p.body.id}`, {
      key: tenant.key,
      body: { config: { max_calls: -1, window_seconds: 60 } },
    });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_body');
    const typeOnly = await gw.request('PATCH', `/v1/policies/${p.body.id}`, {
      key: tenant.key,
      body: { type: 'budget' },
    });
    expect(typeOnly.status).toBe(400);
    expect(
      (await gw.request('GET', `/v1/policies/${p.body.id}`, { key: tenant.key })).body.config.max_calls,
    ).toBe(5);
  });

  it('reorders rules: listed ids first, the rest after in their old order', async () => {
    const tenant = await gw.createTenant();
    const ids: string[] = [];
    for (const name of ['a', 'b', 'c']) ids.push((await create(tenant, { name, type: 'allow' })).body.id);
    const r = await gw.request('POST', '/v1/policies/reorder', {
      key: tenant.key,
      body: { ids: [ids[2], ids[1]] },
    });
    expect(r.status).toBe(200);
    expect(r.body.policies.map((p: { name: string; order: number }) => [p.name, p.order])).toEqual([
      ['c', 0],
      ['b', 1],
      ['a', 2],
    ]);
    const unknown = await gw.request('POST', '/v1/policies/reorder', {
      key: tenant.key,
      body: { ids: ['pol_nope'] },
    });
    expect(unknown.status).toBe(404);
    expect(
      (await gw.request('POST', '/v1/policies/reorder', { key: tenant.key, body: { ids: [] } })).body.error
        .code,
    ).toBe('invalid_body');
  });
});

describe('decisions', () => {
  it('denies with the flat body {reason, ruleType, ruleId} and logs one evaluation per decision', async () => {
    const tenant = await gw.createTenant();
    const deny = await create(tenant, {
      name: 'no refunds',
      type: 'deny',
      agents: ['bot-*'],
      tools: ['refund.*'],
    });
    const denied = await check(tenant, { agent_id: 'bot-1', tool_name: 'refund.create' });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ reason: 'denied_by_rule', ruleType: 'deny', ruleId: deny.body.id });
    expect(denied.body).not.toHaveProperty('error');
    const allowed = await check(tenant, { agent_id: 'bot-1', tool_name: 'charge.create' });
    expect(allowed.status).toBe(201);
    const other = await check(tenant, { agent_id: 'human-1', tool_name: 'refund.create' });
    expect(other.status).toBe(201);
    const log = await gw.request('GET', '/v1/policies/evaluations', { key: tenant.key });
    expect(
      log.body.evaluations.map(
        (e: { agentId: string; toolName: string; decision: string; denialReason: string | null }) => [
          e.agentId,
          e.toolName,
          e.decision,
          e.denialReason,
        ],
      ),
    ).toEqual([
      ['human-1', 'refund.create', 'allow', null],
      ['bot-1', 'charge.create', 'allow', null],
      ['bot-1', 'refund.create', 'deny', 'denied_by_rule'],
    ]);
    const denials = await gw.request(
      'GET',
      '/v1/policies/evaluations?decision=deny&agent_id=bot-1&tool_name=refund.create',
      { key: tenant.key },
    );
    expect(denials.body.evaluations).toHaveLength(1);
    expect(denials.body.evaluations[0]).toMatchObject({ ruleId: deny.body.id, ruleName: 'no refunds' });
    const paged = await gw.request('GET', '/v1/policies/evaluations?limit=2', { key: tenant.key });
    expect(paged.body.has_more).toBe(true);
    const rest = await gw.request(
      'GET',
      `/v1/policies/evaluations?limit=2&before=${paged.body.next_before}`,
      { key: tenant.key },
    );
    expect(rest.body.evaluations).toHaveLength(1);
  });

  it("counts a budget from the ledger: debits, fees and open holds of the matched agents' wallets", async () => {
    const tenant = await gw.createTenant();
    const budget = await create(tenant, {
      name: 'daily cap',
      type: 'budget',
      agents: ['shopper'],
      config: { currency: 'BRL', cap_minor: '1000', window: 'day' },
    });
    const wallet = await newWallet(gw, tenant, { agent_id: 'shopper' });
    const elsewhere = await newWallet(gw, tenant, { agent_id: 'other' });
    await fund(gw, tenant, wallet, 10_000);
    await fund(gw, tenant, elsewhere, 10_000);
    await engineStep(gw, tenant, wallet, 'debit', 400, null);
    await adjust(gw, tenant, wallet, 'fee', 200);
    const attempt = await startAttempt(gw, tenant, wallet);
    await engineStep(gw, tenant, wallet, 'hold', 200, attempt);
    await engineStep(gw, tenant, elsewhere, 'debit', 5000, null); // another agent's spend does not count
    expect(
      (await check(tenant, { agent_id: 'shopper', tool_name: 'x', amount_minor: '200', currency: 'BRL' }))
        .status,
    ).toBe(201);
    const over = await check(tenant, {
      agent_id: 'shopper',
      tool_name: 'x',
      amount_minor: '201',
      currency: 'BRL',
    });
    expect(over.status).toBe(403);
    expect(over.body).toMatchObject({
      reason: 'budget_exceeded',
      ruleType: 'budget',
      ruleId: budget.body.id,
    });
    await engineStep(gw, tenant, wallet, 'release', 200, attempt);
    expect(
      (await check(tenant, { agent_id: 'shopper', tool_name: 'x', amount_minor: '400', currency: 'BRL' }))
        .status,
    ).toBe(201);
    expect(
      (await check(tenant, { agent_id: 'shopper', tool_name: 'x', amount_minor: '99999', currency: 'USD' }))
        .status,
    ).toBe(201);
  });

  it('rate-limits allowed calls per agent, exactly even when calls race', async () => {
    const tenant = await gw.createTenant();
    await create(tenant, {
      name: 'slow down',
      type: 'rate-limit',
      tools: ['search.*'],
      config: { max_calls: 5, window_seconds: 3600 },
    });
    const results = await Promise.all(
      Array.from({ length: 12 }, () => check(tenant, { agent_id: 'crawler', tool_name: 'search.web' })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
    const limited = results.filter((r) => r.status === 403);
    expect(limited).toHaveLength(7);
    expect(limited[0].body.reason).toBe('rate_limited');
    expect((await check(tenant, { agent_id: 'another', tool_name: 'search.web' })).status).toBe(201);
    expect((await check(tenant, { agent_id: 'crawler', tool_name: 'mail.send' })).status).toBe(201);
  });

  it('denies calls outside a time window', async () => {
    const tenant = await gw.createTenant();
    const days = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
    const today = days[(new Date().getUTCDay() + 6) % 7];
    const tw = await create(tenant, {
      name: 'not today',
      type: 'time-window',
      config: { timezone: 'UTC', days: days.filter((d) => d !== today), start: '00:00', end: '00:00' },
    });
    const r = await check(tenant, { agent_id: 'a', tool_name: 't' });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({
      reason: 'outside_time_window',
      ruleType: 'time-window',
      ruleId: tw.body.id,
    });
    await gw.request('PATCH', `/v1/policies/${tw.body.id}`, {
      key: tenant.key,
      body: { config: { timezone: 'UTC', days, start: '00:00', end: '00:00' } },
    });
    expect((await check(tenant, { agent_id: 'a', tool_name: 't' })).status).toBe(201);
  });

  it('follows the order: an allow placed before a deny lets the call through', async () => {
    const tenant = await gw.createTenant();
    const deny = await create(tenant, { name: 'deny all', type: 'deny' });
    const allow = await create(tenant, { name: 'vip', type: 'allow', agents: ['vip'] });
    expect((await check(tenant, { agent_id: 'vip', tool_name: 't' })).status).toBe(403);
    await gw.request('POST', '/v1/policies/reorder', {
      key: tenant.key,
      body: { ids: [allow.body.id, deny.body.id] },
    });
    expect((await check(tenant, { agent_id: 'vip', tool_name: 't' })).status).toBe(201);
    expect((await check(tenant, { agent_id: 'guest', tool_name: 't' })).status).toBe(403);
  });
});

describe('tenant isolation', () => {
  it("answers 404 for another tenant's policy and keeps each log and rule set apart", async () => {
    const other = await gw.createTenant();
    const mine = await create(t, { name: 'mine', type: 'deny', agents: ['x'] });
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { enabled: false }],
      ['DELETE', undefined],
    ] as const) {
      const r = await gw.request(method, `/v1/policies/${mine.body.id}`, { key: other.key, body });
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    }
    expect(
      (await gw.request('POST', '/v1/policies/reorder', { key: other.key, body: { ids: [mine.body.id] } }))
        .status,
    ).toBe(404);
    expect((await check(other, { agent_id: 'x', tool_name: 't' })).status).toBe(201);
    await check(t, { agent_id: 'x', tool_name: 't' });
    const log = await gw.request('GET', '/v1/policies/evaluations', { key: other.key });
    expect(log.body.evaluations.every((e: { decision: string }) => e.decision === 'allow')).toBe(true);
    expect((await gw.request('GET', '/v1/policies', { key: other.key })).body.policies).toHaveLength(0);
    expect((await gw.request('GET', `/v1/policies/${mine.body.id}`, { key: t.key })).body.enabled).toBe(true);
  });
});
