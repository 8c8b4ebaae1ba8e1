// Policy configs that can never break evaluation: each type's required keys are checked at create and
// update (unknown keys are kept, `config` is otherwise free-form), a stored rule whose config is unusable
// fails closed with a clear reason instead of a 500 or a stuck spend, and odd evaluation bodies get a 4xx.
import { sql } from 'slonik';
import { z } from 'zod';
import { prefixedId } from '../domain/ids';
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';
import { fund, newWallet } from './support/money';

let gw: Gateway;
beforeAll(async () => {
  gw = await startGateway({ worker: false });
});
afterAll(async () => {
  await gw?.stop();
});

const create = (tenant: Tenant, body: Record<string, unknown>) =>
  gw.request('POST', '/v1/policies', { key: tenant.key, body });
const patch = (tenant: Tenant, id: string, body: Record<string, unknown>) =>
  gw.request('PATCH', `/v1/policies/${id}`, { key: tenant.key, body });
const evaluate = (tenant: Tenant, body: unknown) =>
  gw.request('POST', '/v1/policies/evaluations', { key: tenant.key, body });
const listed = async (tenant: Tenant) =>
  (await gw.request('GET', '/v1/policies', { key: tenant.key })).body.policies;
const evaluations = async (tenant: Tenant) =>
  gw.db.oneFirst(sql.type(z.object({ n: z.number() }))`
  SELECT count(*)::int AS n FROM policy_evaluations WHERE org_id = ${tenant.orgId} AND project_id = ${tenant.projectId}`);

/** A rule stored before configs were checked: written straight into the table, as old rows are. */
async function storeRule(
  gw: Gateway,
  tenant: Tenant,
  type: string,
  config: unknown,
  more: { agents?: string[]; tools?: string[] } = {},
): Promise<string> {
  const id = prefixedId('pol');
  await gw.db.query(sql.unsafe`
    INSERT INTO policies (id, org_id, project_id, name, type, config, agents, tools, "order")
    VALUES (${id}, ${tenant.orgId}, ${tenant.projectId}, ${`old ${type}`}, ${type}, ${JSON.stringify(config)}::jsonb,
            ${sql.array(more.agents ?? [], 'text')}, ${sql.array(more.tools ?? [], 'text')},
            (SELECT COALESCE(max("order") + 1, 0) FROM policies WHERE org_id = ${tenant.orgId} AND project_id = ${tenant.projectId}))`);
  return id;
}

describe('checking a config at create and update', () => {
  /** The schema validator's issues, less its summary line for a failed `if`/`then` (path `/`). */
  const keyIssues = (body: { error: { details: { issues: Array<{ path: string; keyword: string }> } } }) =>
    body.error.details.issues.filter((issue) => issue.keyword !== 'if');

  it.each([
    ['budget', undefined, ['/config']],
    ['budget', {}, ['/config/currency', '/config/cap_minor', '/config/window']],
    ['budget', { currency: 'BRL', window: 'day' }, ['/config/cap_minor']],
    ['rate-limit', undefined, ['/config']],
    ['rate-limit', { max_calls: 5 }, ['/config/window_seconds']],
    ['time-window', undefined, ['/config']],
    ['time-window', { timezone: 'UTC' }, ['/config/days', '/config/start', '/config/end']],
  ])(
    'refuses a %s rule with config %j, naming what is missing in details.issues, and creates nothing',
    async (type, config, paths) => {
      const tenant = await gw.createTenant();
      const r = await create(tenant, { name: 'x', type, ...(config === undefined ? {} : { config }) });
      expect([r.status, r.body.error?.code]).toEqual([400, 'invalid_body']);
      for (const issue of r.body.error.details.issues)
        expect(issue).toEqual({
          path: expect.any(String),
          message: expect.any(String),
          keyword: expect.any(String),
        });
      expect(keyIssues(r.body)).toEqual(
        paths.map((path) => ({
          path,
          message: expect.stringContaining('required property'),
          keyword: 'required',
        })),
      );
      expect(r.body.request_id).toEqual(expect.any(String));
      expect(await listed(tenant)).toEqual([]);
    },
  );

  it('refuses a patch that would leave a rule without the keys its type needs, and changes nothing', async () => {
    const tenant = await gw.createTenant();
    const deny = await create(tenant, { name: 'deny', type: 'deny' });
    const budget = await create(tenant, {
      name: 'cap',
      type: 'budget',
      config: { currency: 'BRL', cap_minor: '500', window: 'day' },
    });
    for (const [id, body, paths] of [
      [
        deny.body.id,
        { type: 'budget', config: { note: 'forgot the cap' } },
        ['/config/currency', '/config/cap_minor', '/config/window'],
      ],
      [deny.body.id, { type: 'rate-limit', config: {} }, ['/config/max_calls', '/config/window_seconds']],
      [deny.body.id, { type: 'budget' }, ['/config']],
      [budget.body.id, { config: { window: 'day' } }, ['/config/currency', '/config/cap_minor']],
      [
        budget.body.id,
        { type: 'rate-limit', config: { currency: 'BRL', cap_minor: '500', window: 'day' } },
        ['/config/max_calls', '/config/window_seconds'],
      ],
    ] as const) {
      const r = await patch(tenant, id, body);
      expect([r.status, r.body.error.code]).toEqual([400, 'invalid_body']);
      expect(keyIssues(r.body)).toEqual(
        paths.map((path) => ({ path, message: expect.any(String), keyword: 'required' })),
      );
    }
    expect((await listed(tenant)).map((p: { type: string; config: unknown }) => [p.type, p.config])).toEqual([
      ['deny', {}],
      ['budget', { currency: 'BRL', cap_minor: '500', window: 'day' }],
    ]);
  });

  it('keeps unknown config keys on every type and returns them', async () => {
    const tenant = await gw.createTenant();
    const deny = await create(tenant, { name: 'noted', type: 'deny', config: { note: 'x' } });
    expect([deny.status, deny.body.config]).toEqual([201, { note: 'x' }]);
    const budget = await create(tenant, {
      name: 'cap',
      type: 'budget',
      config: { currency: 'BRL', cap_minor: '500', window: 'day', owner: { team: 'ops' } },
    });
    expect([budget.status, budget.body.config]).toEqual([
      201,
      { currency: 'BRL', cap_minor: '500', window: 'day', owner: { team: 'ops' } },
    ]);
    const patched = await patch(tenant, deny.body.id, { config: { note: 'y', ticket: 42 } });
    expect([patched.status, patched.body.config]).toEqual([200, { note: 'y', ticket: 42 }]);
    expect(
      (await gw.request('GET', `/v1/policies/${budget.body.id}`, { key: tenant.key })).body.config.owner,
    ).toEqual({ team: 'ops' });
  });

  it("publishes each type's config schema in the OpenAPI document", async () => {
    const doc = (await gw.request('GET', '/openapi.json')).body;
    const configs = (schema: {
      allOf: Array<{
        if: { properties: { type: { const: string } } };
        then: { properties: { config: Record<string, unknown> }; required?: string[] };
      }>;
    }) =>
      Object.fromEntries(
        schema.allOf.map((branch) => [
          branch.if.properties.type.const,
          { ...branch.then.properties.config, needed: branch.then.required ?? [] },
        ]),
      );
    const created = configs(doc.paths['/v1/policies'].post.requestBody.content['application/json'].schema);
    expect(created.budget).toMatchObject({
      title: 'BudgetPolicyConfig',
      type: 'object',
      required: ['currency', 'cap_minor', 'window'],
      needed: ['config'],
    });
    expect(created['rate-limit']).toMatchObject({
      title: 'RateLimitPolicyConfig',
      required: ['max_calls', 'window_seconds'],
      needed: ['config'],
    });
    expect(created['time-window']).toMatchObject({
      title: 'TimeWindowPolicyConfig',
      required: ['timezone', 'days', 'start', 'end'],
      needed: ['config'],
    });
    expect(created.allow).toMatchObject({ title: 'AllowPolicyConfig', needed: [] });
    expect(created.deny).toMatchObject({ title: 'DenyPolicyConfig', needed: [] });
    expect(created['approval-required']).toMatchObject({ title: 'ApprovalRequiredPolicyConfig', needed: [] });
    for (const config of Object.values(created)) expect(config).not.toHaveProperty('additionalProperties');
    const updated = configs(
      doc.paths['/v1/policies/{id}'].patch.requestBody.content['application/json'].schema,
    );
    expect(updated.budget).toMatchObject({ title: 'BudgetPolicyConfig', needed: [] });
    expect(
      doc.paths['/v1/policies/evaluations'].post.responses['403'].content['application/json'].schema
        .properties.reason.enum,
    ).toContain('rule_config_invalid');
  });
});

describe('evaluating rules stored with an unusable config', () => {
  it.each([
    ['budget', {}],
    ['budget', { currency: 'BRL', cap_minor: 'lots', window: 'day' }],
    ['rate-limit', {}],
    ['rate-limit', { max_calls: 'five', window_seconds: 60 }],
    ['time-window', { timezone: 'Mars/Olympus', days: ['mon'], start: '09:00', end: '17:00' }],
    ['approval-required', { above_minor: 'some' }],
    ['budget', null],
    ['rate-limit', ['not', 'an', 'object']],
  ])(
    'denies with rule_config_invalid for a stored %s rule with config %j, never a 500',
    async (type, config) => {
      const tenant = await gw.createTenant();
      const id = await storeRule(gw, tenant, type, config);
      const r = await evaluate(tenant, {
        agent_id: 'agent-1',
        tool_name: 'wallet.execute',
        amount_minor: '100',
        currency: 'BRL',
      });
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ reason: 'rule_config_invalid', ruleType: type, ruleId: id });
      const log = await gw.request('GET', '/v1/policies/evaluations', { key: tenant.key });
      expect(log.body.evaluations).toEqual([
        expect.objectContaining({ decision: 'deny', denialReason: 'rule_config_invalid', ruleId: id }),
      ]);
      // Listing and reading the broken rule still work, so it can be fixed.
      expect((await gw.request('GET', `/v1/policies/${id}`, { key: tenant.key })).status).toBe(200);
      expect((await gw.request('GET', '/v1/policies', { key: tenant.key })).status).toBe(200);
    },
  );

  it('lets a broken rule be renamed, disabled and deleted without first fixing its config', async () => {
    const tenant = await gw.createTenant();
    const id = await storeRule(gw, tenant, 'time-window', {
      timezone: 'Mars/Olympus',
      days: ['mon'],
      start: '09:00',
      end: '17:00',
    });
    const renamed = await patch(tenant, id, { name: 'old window, to fix', enabled: false });
    expect([renamed.status, renamed.body.name, renamed.body.enabled]).toEqual([
      200,
      'old window, to fix',
      false,
    ]);
    expect((await evaluate(tenant, { agent_id: 'a', tool_name: 't' })).status).toBe(201);
    expect((await gw.request('DELETE', `/v1/policies/${id}`, { key: tenant.key })).status).toBe(200);
  });

  it('leaves calls a broken rule does not match alone, and allows again once the rule is fixed', async () => {
    const tenant = await gw.createTenant();
    const id = await storeRule(gw, tenant, 'budget', {}, { agents: ['shopper'] });
    expect((await evaluate(tenant, { agent_id: 'crawler', tool_name: 'search' })).status).toBe(201);
    expect((await evaluate(tenant, { agent_id: 'shopper', tool_name: 'search' })).body.reason).toBe(
      'rule_config_invalid',
    );
    const fixed = await patch(tenant, id, { config: { currency: 'BRL', cap_minor: '1000', window: 'day' } });
    expect(fixed.status).toBe(200);
    expect(
      (
        await evaluate(tenant, {
          agent_id: 'shopper',
          tool_name: 'search',
          amount_minor: '10',
          currency: 'BRL',
        })
      ).status,
    ).toBe(201);
  });
});

describe('odd evaluation bodies', () => {
  it.each([
    ['no body fields', {}],
    ['no tool', { agent_id: 'a' }],
    ['an amount without currency', { agent_id: 'a', tool_name: 't', amount_minor: '5' }],
    [
      'an amount beyond bigint',
      { agent_id: 'a', tool_name: 't', amount_minor: '99999999999999999999', currency: 'BRL' },
    ],
    [
      'a 19-digit amount beyond bigint',
      { agent_id: 'a', tool_name: 't', amount_minor: '9223372036854775808', currency: 'BRL' },
    ],
    ['a 30-digit amount', { agent_id: 'a', tool_name: 't', amount_minor: '9'.repeat(30), currency: 'BRL' }],
    ['a numeric amount', { agent_id: 'a', tool_name: 't', amount_minor: 1e308, currency: 'BRL' }],
    ['a NUL in the agent id', { agent_id: 'a\u0000b', tool_name: 't' }],
    ['a NUL in the tool name', { agent_id: 'a', tool_name: '\u0000' }],
    ['an array body', [1, 2]],
  ])('answers 400 in the envelope for %s and records nothing', async (_name, body) => {
    const tenant = await gw.createTenant();
    const r = await evaluate(tenant, body);
    expect([r.status, r.body.error?.code]).toEqual([400, 'invalid_body']);
    expect(r.body.request_id).toEqual(expect.any(String));
    expect(await evaluations(tenant)).toBe(0);
  });

  it('decides against tool and agent patterns written to make a regex backtrack for ever', async () => {
    const tenant = await gw.createTenant();
    const trap = await create(tenant, {
      name: 'trap',
      type: 'deny',
      agents: [`${'*a'.repeat(99)}b`],
      tools: [`${'*a'.repeat(99)}c`],
    });
    expect(trap.status).toBe(201);
    expect((await evaluate(tenant, { agent_id: 'a'.repeat(200), tool_name: 'a'.repeat(200) })).status).toBe(
      201,
    );
    expect(
      (await evaluate(tenant, { agent_id: `${'a'.repeat(199)}b`, tool_name: `${'a'.repeat(199)}c` })).body
        .reason,
    ).toBe('denied_by_rule');
  });

  it('decides for unknown agents and tools, unicode names and the largest bigint amount', async () => {
    const tenant = await gw.createTenant();
    await create(tenant, {
      name: 'cap',
      type: 'budget',
      config: { currency: 'BRL', cap_minor: '1000', window: 'day' },
    });
    expect(
      (await evaluate(tenant, { agent_id: 'agent-that-never-existed', tool_name: 'tool.nobody.made' }))
        .status,
    ).toBe(201);
    expect((await evaluate(tenant, { agent_id: 'агент-🤖', tool_name: '工具.调用' })).status).toBe(201);
    const max = await evaluate(tenant, {
      agent_id: 'a',
      tool_name: 't',
      amount_minor: '9223372036854775807',
      currency: 'BRL',
    });
    expect([max.status, max.body.reason]).toEqual([403, 'budget_exceeded']);
    expect(await evaluations(tenant)).toBe(3);
  });
});

describe.each(TEMPORAL_SERVERS)('wallet execute with a broken budget rule stored (%s server)', (temporal) => {
  let money: Gateway;
  beforeAll(async () => {
    money = await startGateway({ temporal });
  });
  afterAll(async () => {
    await money?.stop();
  });

  it('refuses the spend at once with rule_config_invalid, moves no money and leaves the attempt finished', async () => {
    const tenant = await money.createTenant();
    const ruleId = await storeRule(money, tenant, 'budget', {});
    const wallet = await newWallet(money, tenant);
    await fund(money, tenant, wallet, 10_000);
    const attemptId = `broken-${temporal}-${Date.now()}`;
    const r = await money.request('POST', `/v1/wallets/${wallet}/execute`, {
      key: tenant.key,
      body: {
        amount: 12.34,
        currency: 'BRL',
        recipient: 'merchant-42',
        description: 'Supplies',
        mandate_id: 'mdt_test',
        attempt_id: attemptId,
      },
    });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ reason: 'rule_config_invalid', ruleType: 'budget', ruleId });
    const attempt = await money.db.oneFirst(sql.type(z.object({ status: z.string() }))`
      SELECT status FROM spend_attempts WHERE org_id = ${tenant.orgId} AND attempt_id = ${attemptId}`);
    expect(attempt).toBe('denied');
    const balance = (await money.request('GET', `/v1/wallets/${wallet}`, { key: tenant.key })).body
      .balances[0];
    expect(balance).toMatchObject({ balance_minor: '10000', available_minor: '10000' });
    const again = await money.request('POST', `/v1/wallets/${wallet}/execute`, {
      key: tenant.key,
      body: {
        amount: 12.34,
        currency: 'BRL',
        recipient: 'merchant-42',
        description: 'Supplies',
        mandate_id: 'mdt_test',
        attempt_id: attemptId,
      },
    });
    expect([again.status, again.body.reason]).toEqual([403, 'rule_config_invalid']);
  });
});
