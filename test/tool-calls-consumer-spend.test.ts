// The paying tool `consumer_payments.execute` through a session, on both Temporal servers: a consumer
// spend on a signed mandate runs as the consumer-spend attempt (mandate, policy, PSP dispatch, receipt),
// is recorded as a tool call, replays verbatim by attempt_id without paying twice, and answers a policy
// rule on `consumer_payments.*` with the flat denial, moving nothing.
import { sql } from 'slonik';
import { z } from 'zod';
import { pixSpend, readyConsumer } from './support/consumer-spend';
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';
import { expectBalanced } from './support/money';

const TOOL = 'consumer_payments.execute';

describe.each(TEMPORAL_SERVERS)('consumer spend through a tool call on the %s server', (temporal) => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway({ temporal });
  });
  afterAll(async () => {
    await gw?.stop();
  });

  const openSession = async (tenant: Tenant) =>
    (await gw.request('POST', '/v1/sessions', { key: tenant.key, body: { servers: ['gateway'] } })).body
      .id as string;
  const call = (tenant: Tenant, session: string, args: Record<string, unknown>) =>
    gw.request('POST', `/v1/sessions/${session}/tool-calls`, {
      key: tenant.key,
      body: { tool: TOOL, arguments: args },
    });
  const balance = async (tenant: Tenant, walletId: string) =>
    (await gw.request('GET', `/v1/wallets/${walletId}`, { key: tenant.key })).body.balances[0];

  it("lists the tool among the gateway server's tools with the spend body as its input schema", async () => {
    const tenant = await gw.createTenant();
    const servers = await gw.request('GET', '/v1/servers', { key: tenant.key });
    const gateway = servers.body.servers.find((s: { id: string }) => s.id === 'gateway');
    const tool = gateway.tools.find((t: { name: string }) => t.name === TOOL);
    expect(tool).toMatchObject({ moves_money: true });
    expect(tool.input_schema.required).toEqual(
      expect.arrayContaining(['signature', 'agent_id', 'amount_minor', 'payee', 'purpose', 'mandate']),
    );
  });

  it('spends on the mandate, records the call and replays it verbatim without paying twice', async () => {
    const tenant = await gw.createTenant();
    const consumer = await readyConsumer(gw, tenant, { fundMinor: 10_000 });
    const session = await openSession(tenant);
    const spend = pixSpend(consumer);
    const r = await call(tenant, session, spend);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      tool_name: TOOL,
      server_id: 'gateway',
      status: 'success',
      attempt_id: spend.attempt_id,
      routing: { engine: 'consumer_spend' },
    });
    expect(r.body.output).toMatchObject({ status: 'completed', attempt_id: spend.attempt_id });
    expect(await balance(tenant, consumer.walletId)).toMatchObject({ balance_minor: '7500' });

    const again = await call(tenant, session, spend);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(r.body);
    expect(await balance(tenant, consumer.walletId)).toMatchObject({ balance_minor: '7500' });
    await expectBalanced(gw, consumer.walletId);
    const types = await gw.db.anyFirst(sql.type(z.object({ type: z.string() }))`
      SELECT type FROM events WHERE org_id = ${tenant.orgId} AND data->>'attempt_id' = ${spend.attempt_id} ORDER BY id`);
    expect(types.filter((type) => type.startsWith('tool_call.'))).toEqual(['tool_call.succeeded']);
  });

  it('refuses arguments without the mandate before any attempt starts', async () => {
    const tenant = await gw.createTenant();
    const consumer = await readyConsumer(gw, tenant, { fundMinor: 10_000 });
    const session = await openSession(tenant);
    const { mandate: _omitted, ...withoutMandate } = pixSpend(consumer);
    const r = await call(tenant, session, withoutMandate);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'invalid_body' });
    expect(
      (await gw.request('GET', `/v1/sessions/${session}/tool-calls`, { key: tenant.key })).body.tool_calls,
    ).toEqual([]);
    expect(await balance(tenant, consumer.walletId)).toMatchObject({ balance_minor: '10000' });
  });

  it('answers a policy rule on consumer_payments.* with the flat denial and moves no money', async () => {
    const tenant = await gw.createTenant();
    const consumer = await readyConsumer(gw, tenant, { fundMinor: 10_000 });
    const rule = await gw.request('POST', '/v1/policies', {
      key: tenant.key,
      body: { name: 'no consumer spends', type: 'deny', tools: ['consumer_payments.*'], config: {} },
    });
    expect(rule.status).toBe(201);
    const session = await openSession(tenant);
    const r = await call(tenant, session, pixSpend(consumer));
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({
      reason: 'denied_by_rule',
      ruleType: 'deny',
      ruleId: rule.body.id,
      tool_call_id: expect.stringMatching(/^tc_/),
    });
    expect(await balance(tenant, consumer.walletId)).toMatchObject({ balance_minor: '10000' });
    const [recorded] = (await gw.request('GET', `/v1/sessions/${session}/tool-calls`, { key: tenant.key }))
      .body.tool_calls;
    expect(recorded).toMatchObject({ status: 'error', error_code: 'denied_by_rule' });
  });
});
