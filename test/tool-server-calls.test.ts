// Calling a tenant's published tool server from another project, on both Temporal servers: the server is
// listed and opened like any other, a free tool goes through the gate to the real upstream MCP server, and a
// priced tool is a money move: held before the upstream call, debited with the tenant's share and the platform
// fee credited in the same transaction when it succeeds, released when it fails or answers too late, held when
// the answer never came; idempotent by attempt id, at the price it was authorized at, refused by policy before
// any hold. Called through REST and by a real MCP client through the gateway's endpoint. Fees are swept.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { sql } from 'slonik';
import { z } from 'zod';
import { MCP_UPSTREAM_AUTH, type McpUpstreamMock } from '../providers/mocks/mcp-upstream';
import { ensureMoneySchedules } from '../orchestration/money-schedules';
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';
import { expectBalanced, fund, newWallet } from './support/money';

describe.each(TEMPORAL_SERVERS)('paid tool calls on the %s Temporal server', (temporal) => {
  let gw: Gateway;
  let upstream: McpUpstreamMock;
  let tenant: Tenant;
  let caller: Tenant;
  let server: { id: string; slug: string; payout_wallet_id: string; fee_wallet_id: string };
  let session: string;
  let attemptSeq = 0;

  beforeAll(async () => {
    gw = await startGateway({ temporal });
    upstream = gw.mocks.mcp_upstream as McpUpstreamMock;
    tenant = await gw.createTenant();
    caller = await gw.createTenant();
    const created = await gw.request('POST', '/v1/mcp-servers', {
      key: tenant.key,
      body: {
        slug: `freight-${temporal}`,
        name: 'Freight quotes',
        upstream_url: upstream.url,
        upstream_auth: MCP_UPSTREAM_AUTH,
        platform_fee_bps: 1500,
        tools: [
          { tool_name: 'echo', price: '0' },
          { tool_name: 'quote', price: '0.25' },
          { tool_name: 'fail', price: '0.50' },
          { tool_name: 'slow', price: '0.50' },
          { tool_name: 'vanish', price: '0.50' },
        ],
      },
    });
    if (created.status !== 201) throw new Error(created.text);
    server = created.body;
    session = (
      await gw.request('POST', '/v1/sessions', {
        key: caller.key,
        body: { servers: ['gateway', server.slug] },
      })
    ).body.id;
  });
  afterAll(async () => {
    await gw?.stop();
  });

  const attempt = () => `att-ts-${temporal}-${++attemptSeq}-${Date.now()}`;
  const call = (tool: string, args: Record<string, unknown>, who = caller, inSession = session) =>
    gw.request('POST', `/v1/sessions/${inSession}/tool-calls`, {
      key: who.key,
      body: { tool, arguments: args },
    });
  const balance = async (t: Tenant, walletId: string) =>
    (await gw.request('GET', `/v1/wallets/${walletId}`, { key: t.key })).body.balances[0] as {
      balance_minor: string;
      available_minor: string;
    };
  const entries = (walletId: string) =>
    gw.db.any(sql.type(
      z.object({ kind: z.string(), amount_minor: z.string(), attempt_id: z.string().nullable() }),
    )`
      SELECT kind, amount_minor::text, attempt_id FROM wallet_ledger_entries WHERE wallet_id = ${walletId} ORDER BY id`);
  const fundedWallet = async (amount: number) => {
    const wallet = await newWallet(gw, caller);
    await fund(gw, caller, wallet, amount);
    return wallet;
  };

  it('lists the published server to another project and its tools with the payment argument', async () => {
    const servers = (await gw.request('GET', '/v1/servers', { key: caller.key })).body.servers;
    const listed = servers.find((s: { id: string }) => s.id === server.slug);
    expect(listed).toMatchObject({ kind: 'tool_server', name: 'Freight quotes' });
    const quote = listed.tools.find((t: { name: string }) => t.name === `${server.slug}.quote`);
    expect(quote).toMatchObject({ moves_money: true });
    expect(quote.input_schema.required).toEqual(['from', 'to', 'gateway_payment']);
    const tools = (await gw.request('GET', `/v1/sessions/${session}/tools`, { key: caller.key })).body.tools;
    expect(tools.map((t: { name: string }) => t.name)).toEqual(
      expect.arrayContaining([`${server.slug}.echo`, `${server.slug}.quote`, 'wallet.execute']),
    );
  });

  it('calls a free tool upstream through the gate and records it with its event', async () => {
    const before = upstream.calls.echo ?? 0;
    const r = await call(`${server.slug}.echo`, { message: 'hello' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'success', server_id: server.slug, output: { echo: 'hello' } });
    expect(upstream.calls.echo).toBe(before + 1);
    const types = await gw.db.anyFirst(sql.type(z.object({ type: z.string() }))`
      SELECT type FROM events WHERE data->>'tool_call_id' = ${r.body.id}`);
    expect(types).toEqual(['tool_call.succeeded']);
  });

  it('answers a free tool its upstream fails as a provider failure, recorded with its event', async () => {
    const freeServer = await gw.request('POST', '/v1/mcp-servers', {
      key: tenant.key,
      body: {
        slug: `free-fail-${temporal}`,
        name: 'Free failures',
        upstream_url: upstream.url,
        upstream_auth: MCP_UPSTREAM_AUTH,
        platform_fee_bps: 0,
        tools: [{ tool_name: 'fail', price: '0' }],
      },
    });
    expect(freeServer.status).toBe(201);
    const opened = await gw.request('POST', '/v1/sessions', {
      key: caller.key,
      body: { servers: [freeServer.body.slug] },
    });
    const r = await call(`${freeServer.body.slug}.fail`, {}, caller, opened.body.id);
    expect(r.status).toBe(502);
    expect(r.body.error).toMatchObject({
      code: 'provider_error',
      details: {
        server_id: freeServer.body.slug,
        reason: 'upstream_tool_error',
        provider_response: expect.any(Object),
        tool_call_id: expect.any(String),
      },
    });
    const types = await gw.db.anyFirst(sql.type(z.object({ type: z.string() }))`
      SELECT type FROM events WHERE data->>'tool_call_id' = ${r.body.error.details.tool_call_id}`);
    expect(types).toEqual(['tool_call.failed']);
    const recorded = await gw.request(
      'GET',
      `/v1/sessions/${opened.body.id}/tool-calls/${r.body.error.details.tool_call_id}`,
      { key: caller.key },
    );
    expect(recorded.body).toMatchObject({ status: 'error', error_code: 'upstream_tool_error' });
  });

  it('charges a priced call: held, debited on success, tenant share and platform fee credited, summing to the price', async () => {
    const wallet = await fundedWallet(1_000);
    const before = upstream.calls.quote ?? 0;
    const id = attempt();
    const r = await call(`${server.slug}.quote`, {
      from: 'SP',
      to: 'RJ',
      gateway_payment: { wallet_id: wallet, attempt_id: id },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'success', attempt_id: id, output: { route: 'SP-RJ' } });
    expect(r.body.routing).toMatchObject({ engine: 'tool_charge', price_minor: '25', currency: 'BRL' });
    expect(upstream.calls.quote).toBe(before + 1);
    expect(await balance(caller, wallet)).toMatchObject({ balance_minor: '975', available_minor: '975' });
    // 25 × 15 % = 3.75: the fee rounds down to 3, the tenant gets 22.
    const payout = await entries(server.payout_wallet_id);
    const fees = await entries(server.fee_wallet_id);
    expect(payout.filter((e) => e.kind === 'fund').at(-1)?.amount_minor).toBe('22');
    expect(fees.filter((e) => e.kind === 'fund').at(-1)?.amount_minor).toBe('3');
    expect((await entries(wallet)).map((e) => `${e.kind}:${e.amount_minor}`)).toEqual([
      'fund:1000',
      'hold:-25',
      'debit:-25',
    ]);
    await expectBalanced(gw, wallet);
    await expectBalanced(gw, server.payout_wallet_id);

    // Presented again: the same answer, nothing called or charged twice.
    const again = await call(`${server.slug}.quote`, {
      from: 'SP',
      to: 'RJ',
      gateway_payment: { wallet_id: wallet, attempt_id: id },
    });
    expect(again.body).toMatchObject({ id: r.body.id, status: 'success' });
    expect(upstream.calls.quote).toBe(before + 1);
    expect(await balance(caller, wallet)).toMatchObject({ balance_minor: '975' });
  });

  // Before any test waits on a workflow result through the test client: on the time-skipping server such a
  // wait lets time run ahead, which would expire the pending approval.
  it('holds a paid call a rule sends for approval, charging nothing until a person approves, then once', async () => {
    const other = await gw.createTenant();
    const wallet = await newWallet(gw, other);
    await fund(gw, other, wallet, 1_000);
    const rule = await gw.request('POST', '/v1/policies', {
      key: other.key,
      body: { name: 'ask first', type: 'approval-required', tools: [`${server.slug}.quote`], config: {} },
    });
    expect(rule.status).toBe(201);
    const own = (
      await gw.request('POST', '/v1/sessions', { key: other.key, body: { servers: [server.slug] } })
    ).body.id;
    const before = upstream.calls.quote ?? 0;
    const r = await call(
      `${server.slug}.quote`,
      { from: 'A', to: 'B', gateway_payment: { wallet_id: wallet } },
      other,
      own,
    );
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({
      reason: 'approval_required',
      ruleId: rule.body.id,
      approval_id: expect.any(String),
    });
    expect(upstream.calls.quote ?? 0).toBe(before);
    expect(await balance(other, wallet)).toMatchObject({ available_minor: '1000' });

    const decided = await gw.operator(
      'POST',
      `/v1/orgs/${other.orgId}/approvals/${r.body.approval_id}/decide`,
      {
        user: 'carol',
        body: { decision: 'approve' },
      },
    );
    expect(decided.status).toBe(200);
    let status = (await gw.request('GET', `/v1/approvals/${r.body.approval_id}/status`, { key: other.key }))
      .body;
    while (status.executed_at === null)
      status = (await gw.request('GET', `/v1/approvals/${r.body.approval_id}/status`, { key: other.key }))
        .body;
    expect(status).toMatchObject({ approval_status: 'approved', execution_result: { status: 'completed' } });
    expect(upstream.calls.quote).toBe(before + 1);
    expect(await balance(other, wallet)).toMatchObject({ balance_minor: '975', available_minor: '975' });
    await expectBalanced(gw, wallet);
  });

  it('keeps the price a call was authorized at when the tenant reprices, and charges new calls the new price', async () => {
    const wallet = await fundedWallet(1_000);
    const id = attempt();
    const args = { from: 'SP', to: 'BH', gateway_payment: { wallet_id: wallet, attempt_id: id } };
    expect((await call(`${server.slug}.quote`, args)).body.status).toBe('success');
    const repriced = await gw.request('PATCH', `/v1/mcp-servers/${server.id}/tools/quote`, {
      key: tenant.key,
      body: { price: '1' },
    });
    expect(repriced.status).toBe(200);
    try {
      expect((await call(`${server.slug}.quote`, args)).body.routing.price_minor).toBe('25');
      expect(await balance(caller, wallet)).toMatchObject({ balance_minor: '975' });
      const fresh = await call(`${server.slug}.quote`, { ...args, gateway_payment: { wallet_id: wallet } });
      expect(fresh.body).toMatchObject({ status: 'success', routing: { price_minor: '100' } });
      expect(await balance(caller, wallet)).toMatchObject({ balance_minor: '875' });
    } finally {
      await gw.request('PATCH', `/v1/mcp-servers/${server.id}/tools/quote`, {
        key: tenant.key,
        body: { price: '0.25' },
      });
    }
  });

  it('releases the hold when the upstream tool fails', async () => {
    const wallet = await fundedWallet(1_000);
    const before = upstream.calls.fail ?? 0;
    const r = await call(`${server.slug}.fail`, { gateway_payment: { wallet_id: wallet } });
    // The upstream failing the call is a provider failure: 502 provider_error, the call recorded all the same.
    expect(r.status).toBe(502);
    expect(r.body.error).toMatchObject({
      code: 'provider_error',
      details: { server_id: server.slug, reason: 'upstream_tool_error', tool_call_id: expect.any(String) },
    });
    const recorded = await gw.request(
      'GET',
      `/v1/sessions/${session}/tool-calls/${r.body.error.details.tool_call_id}`,
      { key: caller.key },
    );
    expect(recorded.body).toMatchObject({ status: 'error', error_code: 'upstream_tool_error' });
    const types = await gw.db.anyFirst(sql.type(z.object({ type: z.string() }))`
      SELECT type FROM events WHERE data->>'tool_call_id' = ${recorded.body.id}`);
    expect(types).toEqual(['tool_call.failed']);
    expect(upstream.calls.fail).toBe(before + 1);
    expect(await balance(caller, wallet)).toMatchObject({ balance_minor: '1000', available_minor: '1000' });
    expect((await entries(wallet)).map((e) => e.kind)).toEqual(['fund', 'hold', 'release']);
  });

  it('releases the hold when the upstream answers too late', async () => {
    const wallet = await fundedWallet(1_000);
    const timeout = gw.config.providerTimeoutMs;
    gw.config.providerTimeoutMs = 1_000;
    upstream.slowMs = 3_000;
    try {
      const r = await call(`${server.slug}.slow`, { gateway_payment: { wallet_id: wallet } });
      expect(r.status).toBe(502);
      expect(r.body.error).toMatchObject({
        code: 'provider_error',
        details: { reason: 'upstream_timed_out' },
      });
    } finally {
      gw.config.providerTimeoutMs = timeout;
    }
    expect(await balance(caller, wallet)).toMatchObject({ balance_minor: '1000', available_minor: '1000' });
  });

  it('keeps the price held when the answer never came, and settles it once the outcome is known', async () => {
    const wallet = await fundedWallet(1_000);
    const id = attempt();
    const args = { gateway_payment: { wallet_id: wallet, attempt_id: id } };
    const r = await call(`${server.slug}.vanish`, args);
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('attempt_in_progress');
    expect(await balance(caller, wallet)).toMatchObject({ balance_minor: '1000', available_minor: '950' });
    const charge = await gw.db.oneFirst(sql.type(z.object({ status: z.string() }))`
      SELECT status FROM tool_server_charges WHERE attempt_id = ${id}`);
    expect(charge).toBe('uncertain');
    // The tenant, who knows its upstream's records, settles it; the next presentation answers the outcome.
    const resolved = await gw.request('POST', `/v1/mcp-servers/${server.id}/charges/${id}/resolve`, {
      key: tenant.key,
      body: { outcome: 'failed' },
    });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ attempt_id: id, status: 'failed' });
    const settled = await call(`${server.slug}.vanish`, args);
    expect(settled.status).toBe(502);
    expect(settled.body.error).toMatchObject({
      code: 'provider_error',
      details: { reason: 'upstream_failed', tool_call_id: expect.any(String) },
    });
    expect(await balance(caller, wallet)).toMatchObject({ balance_minor: '1000', available_minor: '1000' });
  });

  it('fails without calling the upstream when the wallet cannot cover the price', async () => {
    const wallet = await fundedWallet(10);
    const before = upstream.calls.quote ?? 0;
    const r = await call(`${server.slug}.quote`, {
      from: 'A',
      to: 'B',
      gateway_payment: { wallet_id: wallet },
    });
    expect(r.body).toMatchObject({ status: 'error', error_code: 'insufficient_funds' });
    expect(upstream.calls.quote ?? 0).toBe(before);
    expect((await entries(wallet)).map((e) => e.kind)).toEqual(['fund']);
  });

  it('refuses a call a policy denies before any hold or upstream call', async () => {
    const other = await gw.createTenant();
    const wallet = await newWallet(gw, other);
    await fund(gw, other, wallet, 1_000);
    const rule = await gw.request('POST', '/v1/policies', {
      key: other.key,
      body: { name: 'no freight', type: 'deny', tools: [`${server.slug}.*`], config: {} },
    });
    expect(rule.status).toBe(201);
    const own = (
      await gw.request('POST', '/v1/sessions', { key: other.key, body: { servers: [server.slug] } })
    ).body.id;
    const before = upstream.calls.quote ?? 0;
    const r = await call(
      `${server.slug}.quote`,
      { from: 'A', to: 'B', gateway_payment: { wallet_id: wallet } },
      other,
      own,
    );
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ reason: expect.any(String), ruleId: rule.body.id });
    expect(upstream.calls.quote ?? 0).toBe(before);
    expect(await balance(other, wallet)).toMatchObject({ available_minor: '1000' });
  });

  it('refuses arguments that do not match the upstream schema, before anything is charged', async () => {
    const wallet = await fundedWallet(1_000);
    const r = await call(`${server.slug}.quote`, { from: 'A', gateway_payment: { wallet_id: wallet } });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_body');
    const missingPayment = await call(`${server.slug}.quote`, { from: 'A', to: 'B' });
    expect(missingPayment.status).toBe(400);
    expect((await entries(wallet)).map((e) => e.kind)).toEqual(['fund']);
  });

  it('pays through a real MCP client on the gateway endpoint', async () => {
    const wallet = await fundedWallet(1_000);
    const client = new Client({ name: 'caller', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gw.url}/v1/sessions/${session}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${caller.key}` } },
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining([`${server.slug}.quote`, `${server.slug}.echo`]),
      );
      const result = await client.callTool({
        name: `${server.slug}.quote`,
        arguments: { from: 'POA', to: 'CWB', gateway_payment: { wallet_id: wallet } },
      });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ route: 'POA-CWB' });
      const failed = await client.callTool({
        name: `${server.slug}.fail`,
        arguments: { gateway_payment: { wallet_id: wallet } },
      });
      expect(failed.isError).toBe(true);
    } finally {
      await client.close();
    }
    expect(await balance(caller, wallet)).toMatchObject({ balance_minor: '975', available_minor: '975' });
  });

  it("sweeps the accrued platform fees to the organization's wallet once", async () => {
    const accrued = (await balance(tenant, server.fee_wallet_id)).balance_minor;
    expect(BigInt(accrued)).toBeGreaterThan(0n);
    const first = await gw.request('POST', '/v1/mcp-servers/platform-fees/sweep', { key: tenant.key });
    expect(first.status).toBe(200);
    expect(first.body.moved).toEqual([
      { server_id: server.id, currency: 'BRL', amount_minor: accrued, to_wallet_id: expect.any(String) },
    ]);
    const to = first.body.moved[0].to_wallet_id as string;
    expect(await balance(tenant, to)).toMatchObject({ balance_minor: accrued });
    expect(await balance(tenant, server.fee_wallet_id)).toMatchObject({ balance_minor: '0' });
    const second = await gw.request('POST', '/v1/mcp-servers/platform-fees/sweep', { key: tenant.key });
    expect(second.body.moved).toEqual([]);
    expect(await balance(tenant, to)).toMatchObject({ balance_minor: accrued });
    await expectBalanced(gw, to);
    await expectBalanced(gw, server.fee_wallet_id);
  });

  // Schedules are a real server's feature: the time-skipping test server does not implement them.
  if (temporal === 'dev')
    it('registers the hourly platform-fee sweep schedule', async () => {
      const created = await ensureMoneySchedules(gw.env.client, gw.taskQueue);
      expect(created['platform-fee-sweep']).toMatch(/created|exists/);
      const schedule = await gw.env.client.schedule.getHandle('platform-fee-sweep').describe();
      expect(schedule.action).toMatchObject({ type: 'startWorkflow', workflowType: 'platformFeeSweep' });
    });

  it("moves what accrued when the schedule's sweep workflow runs", async () => {
    const wallet = await fundedWallet(1_000);
    const paid = await call(`${server.slug}.quote`, {
      from: 'A',
      to: 'B',
      gateway_payment: { wallet_id: wallet },
    });
    expect(paid.body.status).toBe('success');
    expect(await balance(tenant, server.fee_wallet_id)).toMatchObject({ balance_minor: '3' });
    const result = await gw.env.client.workflow.execute('platformFeeSweep', {
      taskQueue: gw.taskQueue,
      workflowId: `platform-fee-sweep/test-${temporal}`,
    });
    expect(result).toEqual({ moved: 1 });
    expect(await balance(tenant, server.fee_wallet_id)).toMatchObject({ balance_minor: '0' });
  });

  it('ranks the published tools in tool search for another project', async () => {
    const r = await gw.request('POST', '/v1/tools/search', {
      key: caller.key,
      body: { intent: 'freight quote for a route', limit: 5 },
    });
    expect(r.status).toBe(200);
    expect(r.body.hits.map((h: { tool_name: string }) => h.tool_name)).toContain(`${server.slug}.quote`);
  });

  it('stops listing a deleted server while its settled charges stay in the ledger', async () => {
    const settled = (await entries(server.payout_wallet_id)).length;
    const deleted = await gw.request('DELETE', `/v1/mcp-servers/${server.id}`, { key: tenant.key });
    expect(deleted.status).toBe(200);
    const servers = (await gw.request('GET', '/v1/servers', { key: caller.key })).body.servers;
    expect(servers.map((s: { id: string }) => s.id)).not.toContain(server.slug);
    const r = await call(`${server.slug}.echo`, { message: 'still there?' });
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('tool_not_found');
    expect((await entries(server.payout_wallet_id)).length).toBe(settled);
  });
});
