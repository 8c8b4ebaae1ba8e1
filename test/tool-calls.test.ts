// Tool calls through HTTP: arguments checked against the tool's JSON Schema, provider tools dispatched to the
// mock provider with the vault credential injected, the gateway's own read tools, policy denials and
// approval holds (replayed once after a person approves), every call recorded with outcome and timing and
// its tool_call.* event, the session rate limit, and a call in flight when its key is revoked.
import { sql } from 'slonik';
import { z } from 'zod';
import { API_KEY_SANDBOX } from '../providers/mocks/auth-api-key';
import type { AuthMock } from '../providers/mocks/auth-mock';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { fund, newWallet } from './support/money';

let gw: Gateway;
let t: Tenant;
let pix: AuthMock;
beforeAll(async () => {
  gw = await startGateway();
  pix = gw.mocks.auth_api_key as unknown as AuthMock;
  t = await gw.createTenant();
  const connected = await gw.request('POST', '/v1/providers/pix-psp/connections', {
    key: t.key,
    body: { credentials: API_KEY_SANDBOX },
  });
  if (connected.status !== 201) throw new Error(connected.text);
});
afterAll(async () => {
  await gw?.stop();
});

async function openSession(tenant = t, body: Record<string, unknown> = {}): Promise<string> {
  const r = await gw.request('POST', '/v1/sessions', {
    key: tenant.key,
    body: { servers: ['gateway', 'pix-psp'], ...body },
  });
  if (r.status !== 201) throw new Error(r.text);
  return r.body.id;
}
const call = (session: string, tool: string, args: Record<string, unknown>, key = t.key) =>
  gw.request('POST', `/v1/sessions/${session}/tool-calls`, { key, body: { tool, arguments: args } });
const calls = async (session: string) =>
  (await gw.request('GET', `/v1/sessions/${session}/tool-calls?limit=100`, { key: t.key })).body.tool_calls;
const events = (session: string) =>
  gw.db.any(sql.type(z.object({ type: z.string(), data: z.record(z.unknown()) }))`
  SELECT type, data FROM events WHERE data->>'session_id' = ${session} AND type LIKE 'tool_call.%' ORDER BY id`);
const policy = async (tenant: Tenant, body: Record<string, unknown>) => {
  const r = await gw.request('POST', '/v1/policies', { key: tenant.key, body });
  if (r.status !== 201) throw new Error(r.text);
  return r.body.id as string;
};

describe('provider tools', () => {
  it('sends the call to the provider with the stored credential and records its outcome, timing and event', async () => {
    const session = await openSession();
    const accepted = pix.counts.accepted;
    const r = await call(session, 'pix-psp.pix_key_lookup', { pix_key: 'ana@example.com' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      object: 'tool_call',
      session_id: session,
      server_id: 'pix-psp',
      tool_name: 'pix-psp.pix_key_lookup',
      status: 'success',
      error_code: null,
      input: { pix_key: 'ana@example.com' },
      output: {
        method: 'POST',
        path: '/tools/pix_key_lookup',
        received_bytes: Buffer.byteLength(JSON.stringify({ pix_key: 'ana@example.com' })),
      },
      routing: { provider: 'pix-psp' },
      failover_trail: [],
    });
    expect(r.body.id).toMatch(/^tc_\d+$/);
    expect(Number.isInteger(r.body.duration_ms)).toBe(true);
    // The mock checked the injected x-api-key; the agent never sent one.
    expect(pix.counts.accepted).toBe(accepted + 1);
    expect(JSON.stringify(r.body)).not.toContain(API_KEY_SANDBOX.api_key);
    expect(
      (await gw.request('GET', `/v1/sessions/${session}/tool-calls/${r.body.id}`, { key: t.key })).body,
    ).toEqual(r.body);
    expect(await events(session)).toEqual([
      {
        type: 'tool_call.succeeded',
        data: expect.objectContaining({
          tool_call_id: r.body.id,
          server_id: 'pix-psp',
          tool_name: 'pix-psp.pix_key_lookup',
        }),
      },
    ]);
  });

  it('answers a provider failure with 502 provider_error and records the call failed with tool_call.failed', async () => {
    const session = await openSession();
    pix.script({ status: 500, body: { message: 'psp down' } });
    const r = await call(session, 'pix-psp.pix_charge_create', { amount_minor: '990' });
    expect(r.status).toBe(502);
    expect(r.body.error).toMatchObject({
      code: 'provider_error',
      details: { status: 500, provider_response: { message: 'psp down' }, tool_call_id: expect.any(String) },
    });
    expect(await calls(session)).toEqual([
      expect.objectContaining({
        id: r.body.error.details.tool_call_id,
        status: 'error',
        error_code: 'provider_error',
        output: {
          error: expect.objectContaining({
            code: 'provider_error',
            details: expect.objectContaining({ status: 500, provider_response: { message: 'psp down' } }),
          }),
        },
      }),
    ]);
    expect((await events(session)).map((e) => e.type)).toEqual(['tool_call.failed']);
  });

  it("refuses arguments that break the tool's schema, and a tool the session does not publish, writing nothing", async () => {
    const session = await openSession();
    const accepted = pix.counts.accepted;
    const missing = await call(session, 'pix-psp.pix_key_lookup', {});
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({
      code: 'invalid_body',
      details: { issues: [{ path: '/arguments/pix_key', keyword: 'required' }] },
    });
    const extra = await call(session, 'pix-psp.pix_key_lookup', { pix_key: 'x', amount: 1 });
    expect(extra.body.error.details.issues).toEqual([
      { path: '/arguments/amount', message: 'is not an accepted field', keyword: 'additionalProperties' },
    ]);
    // A money tool names the wallet it pays from in gateway_payment.
    const money = await call(session, 'pix-psp.pix_send', { pix_key: 'x', amount_minor: '1' });
    expect(money.status).toBe(400);
    expect(money.body.error.details.issues).toEqual([
      expect.objectContaining({ path: '/arguments/gateway_payment', keyword: 'required' }),
    ]);
    const unknown = await call(session, 'ted-bank.statement_read', { from: '2026-01-01', to: '2026-01-31' });
    expect(unknown.body.error.code).toBe('tool_not_found');
    const noArgs = await gw.request('POST', `/v1/sessions/${session}/tool-calls`, {
      key: t.key,
      body: { arguments: {} },
    });
    expect(noArgs.status).toBe(400);
    expect(await calls(session)).toEqual([]);
    expect(await events(session)).toEqual([]);
    expect(pix.counts.accepted).toBe(accepted);
  });
});

describe("the gateway's own tools", () => {
  it("reads a wallet's balances, and answers another project's wallet as not found", async () => {
    const session = await openSession();
    const wallet = await newWallet(gw, t);
    await fund(gw, t, wallet, 2_500);
    const r = await call(session, 'wallet.balances', { wallet_id: wallet });
    expect(r.body).toMatchObject({
      status: 'success',
      server_id: 'gateway',
      output: {
        wallet_id: wallet,
        status: 'active',
        balances: [{ currency: 'BRL', balance_minor: '2500', available_minor: '2500' }],
      },
    });
    const other = await gw.createTenant();
    const foreign = await call(
      await openSession(other, { servers: ['gateway'] }),
      'wallet.balances',
      { wallet_id: wallet },
      other.key,
    );
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('not_found');
  });
});

describe('policies on tool calls', () => {
  it('answers a deny rule with the flat denial, records the refused call and never reaches the provider', async () => {
    const tenant = await gw.createTenant();
    await gw.request('POST', '/v1/providers/pix-psp/connections', {
      key: tenant.key,
      body: { credentials: API_KEY_SANDBOX },
    });
    const ruleId = await policy(tenant, {
      name: 'no charges',
      type: 'deny',
      tools: ['pix-psp.pix_charge_*'],
      config: {},
    });
    const session = await openSession(tenant);
    const accepted = pix.counts.accepted;
    const r = await call(session, 'pix-psp.pix_charge_create', { amount_minor: '990' }, tenant.key);
    expect(r.status).toBe(403);
    expect(r.body).toEqual({
      reason: 'denied_by_rule',
      ruleType: 'deny',
      ruleId,
      ruleName: 'no charges',
      tool_call_id: expect.stringMatching(/^tc_/),
    });
    expect(pix.counts.accepted).toBe(accepted);
    const allowed = await call(session, 'pix-psp.pix_key_lookup', { pix_key: 'k' }, tenant.key);
    expect(allowed.body.status).toBe('success');
    const evaluations = await gw.request('GET', '/v1/policies/evaluations', { key: tenant.key });
    expect(
      evaluations.body.evaluations.map(
        (e: { toolName: string; decision: string }) => `${e.toolName}:${e.decision}`,
      ),
    ).toEqual(expect.arrayContaining(['pix-psp.pix_charge_create:deny', 'pix-psp.pix_key_lookup:allow']));
  });

  it('holds a call for approval and makes it exactly once after a person approves', async () => {
    const tenant = await gw.createTenant();
    await gw.request('POST', '/v1/providers/pix-psp/connections', {
      key: tenant.key,
      body: { credentials: API_KEY_SANDBOX },
    });
    const ruleId = await policy(tenant, {
      name: 'charges need a person',
      type: 'approval-required',
      tools: ['pix-psp.pix_charge_create'],
      config: {},
    });
    const session = await openSession(tenant);
    const accepted = pix.counts.accepted;
    const held = await call(
      session,
      'pix-psp.pix_charge_create',
      { amount_minor: '4200', expires_in_s: 600 },
      tenant.key,
    );
    expect(held.status).toBe(403);
    expect(held.body).toMatchObject({
      reason: 'approval_required',
      ruleType: 'approval-required',
      ruleId,
      approval_id: expect.stringMatching(/^apv_/),
      tool_call_id: expect.any(String),
    });
    expect(pix.counts.accepted).toBe(accepted);
    const approvalId = held.body.approval_id;
    const approval = await gw.request('GET', `/v1/approvals/${approvalId}`, { key: tenant.key });
    expect(approval.body).toMatchObject({
      status: 'pending',
      session_id: session,
      tool_name: 'pix-psp.pix_charge_create',
      tool_input: { amount_minor: '4200', expires_in_s: 600 },
    });

    const decided = await gw.operator('POST', `/v1/orgs/${tenant.orgId}/approvals/${approvalId}/decide`, {
      user: 'alice',
      body: { decision: 'approve' },
    });
    expect(decided.status).toBe(200);
    let status = await gw.request('GET', `/v1/approvals/${approvalId}/status`, { key: tenant.key });
    while (status.body.executed_at === null)
      status = await gw.request('GET', `/v1/approvals/${approvalId}/status`, { key: tenant.key });
    expect(status.body).toMatchObject({
      approval_status: 'approved',
      execution_result: { error_code: null, output: { method: 'POST', path: '/tools/pix_charge_create' } },
    });
    expect(pix.counts.accepted).toBe(accepted + 1);

    const recorded = (await gw.request('GET', `/v1/sessions/${session}/tool-calls`, { key: tenant.key })).body
      .tool_calls;
    expect(
      recorded.map((c: { status: string; error_code: string | null; approval_id: string | null }) => [
        c.status,
        c.error_code,
        c.approval_id,
      ]),
    ).toEqual([
      ['success', null, approvalId],
      ['error', 'approval_required', approvalId],
    ]);
    expect(status.body.execution_result.tool_call_id).toBe(recorded[0].id);
    // The approval's own read tool sees the same.
    const viaTool = await call(session, 'approvals.status', { approval_id: approvalId }, tenant.key);
    expect(viaTool.body.output).toMatchObject({
      approval_id: approvalId,
      approval_status: 'approved',
      execution_result: { tool_call_id: recorded[0].id },
    });
    // Approving again changes nothing and calls nobody.
    const again = await gw.operator('POST', `/v1/orgs/${tenant.orgId}/approvals/${approvalId}/decide`, {
      user: 'alice',
      body: { decision: 'approve' },
    });
    expect(again.status).toBe(409);
    expect(pix.counts.accepted).toBe(accepted + 1);
  });
});

describe("a held call to one of the gateway's own tools", () => {
  it('is made by the gateway itself once a person approves, not sent to a provider', async () => {
    const tenant = await gw.createTenant();
    const wallet = await newWallet(gw, tenant);
    await policy(tenant, {
      name: 'balances need a person',
      type: 'approval-required',
      tools: ['wallet.balances'],
      config: {},
    });
    const session = await openSession(tenant, { servers: ['gateway'] });
    const held = await call(session, 'wallet.balances', { wallet_id: wallet }, tenant.key);
    expect(held.status).toBe(403);
    expect(held.body).toMatchObject({
      reason: 'approval_required',
      approval_id: expect.stringMatching(/^apv_/),
    });
    const approvalId = held.body.approval_id;
    const decided = await gw.operator('POST', `/v1/orgs/${tenant.orgId}/approvals/${approvalId}/decide`, {
      user: 'alice',
      body: { decision: 'approve' },
    });
    expect(decided.status).toBe(200);
    let status = await gw.request('GET', `/v1/approvals/${approvalId}/status`, { key: tenant.key });
    while (status.body.executed_at === null)
      status = await gw.request('GET', `/v1/approvals/${approvalId}/status`, { key: tenant.key });
    expect(status.body.execution_result).toMatchObject({
      error_code: null,
      output: { wallet_id: wallet, status: 'active' },
    });
  });
});

describe('the session rate limit', () => {
  it('answers calls past session_tool_calls_per_minute with the flat 429 and Retry-After', async () => {
    const tenant = await gw.createTenant();
    await gw.request('PATCH', `/v1/projects/${tenant.projectId}/settings`, {
      key: tenant.key,
      body: { session_tool_calls_per_minute: 2 },
    });
    const session = await openSession(tenant, { servers: ['gateway'] });
    const wallet = await newWallet(gw, tenant);
    // Five calls span at most two clock minutes, so at least one minute sees a third call.
    const answers = [];
    for (let i = 0; i < 5; i++)
      answers.push(await call(session, 'wallet.balances', { wallet_id: wallet }, tenant.key));
    const limited = answers.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(1);
    expect(answers.filter((r) => r.status === 200).length).toBeLessThanOrEqual(4);
    expect(limited[0].body).toEqual({
      error: 'rate_limited',
      message: expect.any(String),
      setting: 'session_tool_calls_per_minute',
      limit: 2,
      window_seconds: 60,
      retry_after_seconds: expect.any(Number),
    });
    const retryAfter = Number(limited[0].headers.get('retry-after'));
    expect(retryAfter).toBe(limited[0].body.retry_after_seconds);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // A refused call is not recorded.
    expect(
      (await gw.request('GET', `/v1/sessions/${session}/tool-calls?limit=100`, { key: tenant.key })).body
        .tool_calls,
    ).toHaveLength(answers.length - limited.length);
  });
});

describe('a session closed by another API process after this one served it', () => {
  it('refuses the next call with 409 session_closed before any provider is reached, and records nothing', async () => {
    const session = await openSession();
    expect((await call(session, 'pix-psp.pix_key_lookup', { pix_key: 'ana@example.com' })).status).toBe(200);
    // Another process closes it: this one hears of it only from PostgreSQL.
    await gw.db.query(sql.unsafe`
      UPDATE sessions SET status = 'closed', close_reason = 'closed_by_caller', closed_at = now() WHERE id = ${session}`);
    const accepted = pix.counts.accepted;
    const r = await call(session, 'pix-psp.pix_key_lookup', { pix_key: 'ana@example.com' });
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({
      code: 'session_closed',
      details: { close_reason: 'closed_by_caller' },
    });
    expect(pix.counts.accepted).toBe(accepted);
    expect(await calls(session)).toHaveLength(1);
    expect((await events(session)).map((e) => e.type)).toEqual(['tool_call.succeeded']);
  });
});

describe('a connection replaced after a call used it', () => {
  it('sends the next call with the current connection, and answers 424 once there is none', async () => {
    const tenant = await gw.createTenant();
    const connect = async () => {
      const r = await gw.request('POST', '/v1/providers/pix-psp/connections', {
        key: tenant.key,
        body: { credentials: API_KEY_SANDBOX },
      });
      if (r.status !== 201) throw new Error(r.text);
      return r.body.id as string;
    };
    const first = await connect();
    const session = await openSession(tenant, { servers: ['pix-psp'] });
    const lookup = () => call(session, 'pix-psp.pix_key_lookup', { pix_key: 'ana@example.com' }, tenant.key);
    expect((await lookup()).status).toBe(200);
    expect((await gw.request('DELETE', `/v1/connections/${first}`, { key: tenant.key })).status).toBeLessThan(
      300,
    );
    const accepted = pix.counts.accepted;
    const gone = await lookup();
    expect(gone.status).toBe(424);
    expect(gone.body.error.code).toBe('not_connected');
    expect(pix.counts.accepted).toBe(accepted);
    await connect();
    expect((await lookup()).status).toBe(200);
    expect(pix.counts.accepted).toBe(accepted + 1);
  });
});

describe('revoking the key of a session with a call in flight', () => {
  it("fails the call in flight and withholds the provider's answer", async () => {
    const doomed = await gw.createKey(t.projectId, { name: 'doomed' });
    const session = (
      await gw.request('POST', '/v1/sessions', { key: doomed.key, body: { servers: ['pix-psp'] } })
    ).body.id;
    pix.script({ status: 200, body: { holder: 'Ana', bank: '001' }, delayMs: 1_500 });
    const inFlight = call(session, 'pix-psp.pix_key_lookup', { pix_key: 'ana@example.com' }, doomed.key);
    while (!(await calls(session)).some((c: { status: string }) => c.status === 'running')) {
      /* until the call is dispatched */
    }
    await gw.operator('DELETE', `/v1/api-keys/${doomed.id}`, { project: t.projectId });
    const r = await inFlight;
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ code: 'session_closed', details: { close_reason: 'key_revoked' } });
    expect(r.text).not.toContain('Ana');
    const [recorded] = await calls(session);
    expect(recorded).toMatchObject({ status: 'error', error_code: 'session_closed' });
    expect((await events(session)).map((e) => e.type)).toEqual(['tool_call.failed']);
  });
});

describe('finalizing a call left running', () => {
  it("records it abandoned with its event, and the provider's late answer changes nothing", async () => {
    const session = await openSession();
    pix.script({ status: 200, body: { holder: 'Late' }, delayMs: 1_500 });
    const inFlight = call(session, 'pix-psp.pix_key_lookup', { pix_key: 'slow' });
    let running: { id: string } | undefined;
    while (!running) running = (await calls(session)).find((c: { status: string }) => c.status === 'running');
    const finalized = await gw.request('POST', `/v1/sessions/${session}/tool-calls/${running.id}/finalize`, {
      key: t.key,
      body: { reason: 'stopped waiting' },
    });
    expect(finalized.status).toBe(200);
    expect(finalized.body).toMatchObject({
      id: running.id,
      status: 'error',
      error_code: 'abandoned',
      output: { error: { code: 'abandoned', reason: 'stopped waiting' } },
    });
    const late = await inFlight;
    expect(late.body).toMatchObject({ id: running.id, status: 'error', error_code: 'abandoned' });
    expect((await events(session)).map((e) => e.type)).toEqual(['tool_call.failed']);
    const again = await gw.request('POST', `/v1/sessions/${session}/tool-calls/${running.id}/finalize`, {
      key: t.key,
      body: {},
    });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'tool_call_finished', details: { status: 'error' } });
    const missing = await gw.request('POST', `/v1/sessions/${session}/tool-calls/tc_999999999/finalize`, {
      key: t.key,
      body: {},
    });
    expect(missing.status).toBe(404);
  });
});
