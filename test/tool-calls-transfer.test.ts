// The gateway tool `wallet.transfer`: one ledger transaction between two wallets of the project, gated by
// policy rules on its name, idempotent by external_ref, and made once by the gateway itself when a person
// approves a held call (on both Temporal servers, since the approval replay is a workflow).
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';
import { expectBalanced, fund, newWallet } from './support/money';

describe.each(TEMPORAL_SERVERS)('wallet.transfer as a tool on the %s server', (temporal) => {
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
      body: { tool: 'wallet.transfer', arguments: args },
    });
  const balance = async (tenant: Tenant, walletId: string) =>
    (await gw.request('GET', `/v1/wallets/${walletId}`, { key: tenant.key })).body.balances[0]
      ?.balance_minor ?? '0';
  const setup = async () => {
    const tenant = await gw.createTenant();
    const from = await newWallet(gw, tenant);
    const to = await newWallet(gw, tenant);
    await fund(gw, tenant, from, 10_000);
    return { tenant, from, to, session: await openSession(tenant) };
  };

  it('moves the money in one transaction, answers as the REST transfer does, and refuses a repeated reference', async () => {
    const { tenant, from, to, session } = await setup();
    const args = {
      wallet_id: from,
      to_wallet_id: to,
      currency: 'BRL',
      amount_minor: '2500',
      external_ref: 'rent-11',
    };
    const r = await call(tenant, session, args);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ tool_name: 'wallet.transfer', status: 'success' });
    expect(r.body.output).toMatchObject({
      id: expect.stringMatching(/^trf_/),
      from_wallet_id: from,
      to_wallet_id: to,
      amount_minor: '2500',
      entries: [
        { wallet_id: from, kind: 'debit', amount_minor: '-2500', external_ref: 'rent-11' },
        { wallet_id: to, kind: 'fund', amount_minor: '2500', external_ref: 'rent-11' },
      ],
    });
    expect([await balance(tenant, from), await balance(tenant, to)]).toEqual(['7500', '2500']);

    const repeated = await call(tenant, session, args);
    expect(repeated.status).toBe(409);
    expect(repeated.body.error.code).toBe('ledger_conflict');
    expect([await balance(tenant, from), await balance(tenant, to)]).toEqual(['7500', '2500']);
    await expectBalanced(gw, from);
    await expectBalanced(gw, to);
  });

  it('requires external_ref and refuses a zero amount, moving nothing', async () => {
    const { tenant, from, to, session } = await setup();
    const base = { wallet_id: from, to_wallet_id: to, currency: 'BRL' };
    const noRef = await call(tenant, session, { ...base, amount_minor: '100' });
    expect([noRef.status, noRef.body.error.code]).toEqual([400, 'invalid_body']);
    const zero = await call(tenant, session, { ...base, amount_minor: '0', external_ref: 'z-1' });
    expect([zero.status, zero.body.error.code]).toEqual([400, 'invalid_body']);
    expect([await balance(tenant, from), await balance(tenant, to)]).toEqual(['10000', '0']);
  });

  it('holds the transfer for a person and makes it once on approval', async () => {
    const { tenant, from, to, session } = await setup();
    await gw.request('POST', '/v1/policies', {
      key: tenant.key,
      body: {
        name: 'transfers need a person',
        type: 'approval-required',
        tools: ['wallet.transfer'],
        config: {},
      },
    });
    const held = await call(tenant, session, {
      wallet_id: from,
      to_wallet_id: to,
      currency: 'BRL',
      amount_minor: '4000',
      external_ref: 'held-1',
    });
    expect(held.status).toBe(403);
    expect(held.body).toMatchObject({ reason: 'approval_required' });
    expect(await balance(tenant, from)).toBe('10000');
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
      output: { from_wallet_id: from, to_wallet_id: to, amount_minor: '4000' },
    });
    expect([await balance(tenant, from), await balance(tenant, to)]).toEqual(['6000', '4000']);
    await expectBalanced(gw, from);
  });
});
