// The paying tool `wallet.execute` through a session, on both Temporal servers: it runs as a wallet-execute
// attempt of the attempt engine (policy, hold, dispatch, debit), is recorded as a tool call with its
// event, replays verbatim by attempt_id without moving money again, and answers a policy denial or an
// approval hold with the flat denial.
import { sql } from 'slonik';
import { z } from 'zod';
import type { PaymentsMock } from '../providers/mocks/payments';
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';
import { expectBalanced, fund, newWallet } from './support/money';

describe.each(TEMPORAL_SERVERS)('paying through a tool call on the %s server', (temporal) => {
  let gw: Gateway;
  let t: Tenant;
  let payments: PaymentsMock;
  beforeAll(async () => {
    gw = await startGateway({ temporal });
    payments = gw.mocks.payments as PaymentsMock;
    t = await gw.createTenant();
  });
  afterAll(async () => {
    await gw?.stop();
  });

  let n = 0;
  const attempt = () => `tool-att-${temporal}-${Date.now()}-${++n}`;
  const pay = (walletId: string, attemptId: string, extra: Record<string, unknown> = {}) => ({
    wallet_id: walletId,
    amount: 12.34,
    currency: 'BRL',
    recipient: 'merchant-42',
    description: 'Office supplies',
    mandate_id: 'mdt_test',
    attempt_id: attemptId,
    ...extra,
  });
  const openSession = async (tenant: Tenant) =>
    (await gw.request('POST', '/v1/sessions', { key: tenant.key, body: { servers: ['gateway'] } })).body
      .id as string;
  const call = (tenant: Tenant, session: string, args: Record<string, unknown>) =>
    gw.request('POST', `/v1/sessions/${session}/tool-calls`, {
      key: tenant.key,
      body: { tool: 'wallet.execute', arguments: args },
    });
  const balance = async (tenant: Tenant, walletId: string) =>
    (await gw.request('GET', `/v1/wallets/${walletId}`, { key: tenant.key })).body.balances[0];

  it('pays through the attempt engine, records the call and replays it verbatim without paying twice', async () => {
    const wallet = await newWallet(gw, t);
    await fund(gw, t, wallet, 10_000);
    const session = await openSession(t);
    const id = attempt();
    const r = await call(t, session, pay(wallet, id));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      tool_name: 'wallet.execute',
      server_id: 'gateway',
      status: 'success',
      attempt_id: id,
      routing: { engine: 'wallet_execute', wallet_id: wallet },
    });
    expect(r.body.output).toMatchObject({
      status: 'completed',
      attempt_id: id,
      wallet: { insufficientFunds: false },
    });
    expect(r.body.output.audit.map((s: { step: string; status: string }) => `${s.step}:${s.status}`)).toEqual(
      ['policy:pass', 'hold:pass', 'dispatch:pass', 'debit:pass', 'release:skip'],
    );
    expect(await balance(t, wallet)).toMatchObject({ balance_minor: '8766', available_minor: '8766' });

    const again = await call(t, session, pay(wallet, id));
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(r.body);
    expect(payments.payments().filter((p) => p.reference === id)).toHaveLength(1);
    expect(await balance(t, wallet)).toMatchObject({ balance_minor: '8766' });
    await expectBalanced(gw, wallet);

    const listed = (await gw.request('GET', `/v1/sessions/${session}/tool-calls`, { key: t.key })).body
      .tool_calls;
    expect(listed).toHaveLength(1);
    const types = await gw.db.anyFirst(sql.type(z.object({ type: z.string() }))`
      SELECT type FROM events WHERE org_id = ${t.orgId} AND (data->>'attempt_id' = ${id}) ORDER BY id`);
    expect(types.filter((type) => type.startsWith('tool_call.'))).toEqual(['tool_call.succeeded']);
    expect(types).toEqual(expect.arrayContaining(['payment.succeeded']));
  });

  it('refuses the same attempt_id with another body as the engine does, paying nothing', async () => {
    const wallet = await newWallet(gw, t);
    await fund(gw, t, wallet, 10_000);
    const session = await openSession(t);
    const id = attempt();
    expect((await call(t, session, pay(wallet, id))).status).toBe(200);
    const changed = await call(t, session, pay(wallet, id, { amount: 99 }));
    expect(changed.status).toBe(409);
    expect(changed.body.error.code).toBe('attempt_id_conflict');
    expect(payments.payments().filter((p) => p.reference === id)).toHaveLength(1);
  });

  it('answers a policy denial of wallet.execute with the flat denial and moves no money', async () => {
    const tenant = await gw.createTenant();
    const wallet = await newWallet(gw, tenant);
    await fund(gw, tenant, wallet, 10_000);
    const rule = await gw.request('POST', '/v1/policies', {
      key: tenant.key,
      body: { name: 'no tool payments', type: 'deny', tools: ['wallet.execute'], config: {} },
    });
    const session = await openSession(tenant);
    const r = await call(tenant, session, pay(wallet, attempt()));
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({
      reason: 'denied_by_rule',
      ruleType: 'deny',
      ruleId: rule.body.id,
      status: 'denied',
      tool_call_id: expect.stringMatching(/^tc_/),
    });
    expect(await balance(tenant, wallet)).toMatchObject({ balance_minor: '10000', available_minor: '10000' });
    const [recorded] = (await gw.request('GET', `/v1/sessions/${session}/tool-calls`, { key: tenant.key }))
      .body.tool_calls;
    expect(recorded).toMatchObject({ status: 'error', error_code: 'denied_by_rule' });
  });

  it('holds a payment for approval and pays it once after a person approves', async () => {
    const tenant = await gw.createTenant();
    const wallet = await newWallet(gw, tenant);
    await fund(gw, tenant, wallet, 10_000);
    await gw.request('POST', '/v1/policies', {
      key: tenant.key,
      body: { name: 'a person pays', type: 'approval-required', tools: ['wallet.execute'], config: {} },
    });
    const session = await openSession(tenant);
    const id = attempt();
    const held = await call(tenant, session, pay(wallet, id));
    expect(held.status).toBe(403);
    expect(held.body).toMatchObject({
      reason: 'approval_required',
      status: 'requires-approval',
      approval_id: expect.stringMatching(/^apv_/),
    });
    const decided = await gw.operator(
      'POST',
      `/v1/orgs/${tenant.orgId}/approvals/${held.body.approval_id}/decide`,
      { user: 'bob', body: { decision: 'approve' } },
    );
    expect(decided.status).toBe(200);
    let status = await gw.request('GET', `/v1/approvals/${held.body.approval_id}/status`, {
      key: tenant.key,
    });
    while (status.body.executed_at === null)
      status = await gw.request('GET', `/v1/approvals/${held.body.approval_id}/status`, { key: tenant.key });
    expect(status.body.approval_status).toBe('approved');
    expect(await balance(tenant, wallet)).toMatchObject({ balance_minor: '8766' });
    expect(payments.payments().filter((p) => p.reference === id)).toHaveLength(1);
    const [recorded] = (await gw.request('GET', `/v1/sessions/${session}/tool-calls`, { key: tenant.key }))
      .body.tool_calls;
    expect(recorded).toMatchObject({
      status: 'error',
      error_code: 'approval_required',
      approval_id: held.body.approval_id,
    });
    await expectBalanced(gw, wallet);
  });

  it('records a payment refused before it ran and pays the same attempt_id once the wallet is active again', async () => {
    const wallet = await newWallet(gw, t);
    await fund(gw, t, wallet, 10_000);
    const session = await openSession(t);
    const id = attempt();
    await gw.request('POST', `/v1/wallets/${wallet}/freeze`, { key: t.key });
    const refused = await call(t, session, pay(wallet, id));
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('wallet_not_active');
    await gw.request('POST', `/v1/wallets/${wallet}/unfreeze`, { key: t.key });
    const paid = await call(t, session, pay(wallet, id));
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ status: 'success', attempt_id: id, output: { status: 'completed' } });
    const listed = (await gw.request('GET', `/v1/sessions/${session}/tool-calls`, { key: t.key })).body
      .tool_calls;
    expect(
      listed.map((c: { status: string; error_code: string | null; attempt_id: string | null }) => [
        c.status,
        c.error_code,
        c.attempt_id,
      ]),
    ).toEqual([
      ['success', null, id],
      ['error', 'wallet_not_active', null],
    ]);
    expect(payments.payments().filter((p) => p.reference === id)).toHaveLength(1);
  });
});
