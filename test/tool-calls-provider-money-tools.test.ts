// The other catalog money tools (boleto_pay, x402_settle, stablecoin_transfer, shipping_label_buy) go the
// same data-driven path as pix_send and each completes; on both Temporal servers a pix_send whose provider
// took it but never answered is settled by the status lookup, a provider disconnected after the session
// opened refuses before any hold, a boleto line that carries no amount is refused writing nothing, and a
// money tool called over MCP with the SDK client pays once.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { sql } from 'slonik';
import { z } from 'zod';
import { API_KEY_SANDBOX } from '../providers/mocks/auth-api-key';
import type { AuthMock } from '../providers/mocks/auth-mock';
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';
import { expectBalanced, fund, newWallet } from './support/money';

describe.each(TEMPORAL_SERVERS)('more catalog money tools on the %s server', (temporal) => {
  let gw: Gateway;
  let t: Tenant;
  beforeAll(async () => {
    gw = await startGateway({ temporal });
    t = await gw.createTenant();
  });
  afterAll(async () => {
    await gw?.stop();
  });

  let n = 0;
  const attempt = () => `ptm-${temporal}-${Date.now()}-${++n}`;
  const mockOf = (name: string) => gw.mocks[name] as unknown as AuthMock;
  const connect = async (tenant: Tenant, server: string, credentials: Record<string, string>) => {
    const r = await gw.request('POST', `/v1/providers/${server}/connections`, {
      key: tenant.key,
      body: { credentials },
    });
    if (r.status !== 201) throw new Error(r.text);
    return r.body.id as string;
  };
  const connectDda = async (tenant: Tenant) => {
    const started = await gw.request('POST', '/v1/providers/dda-hub/oauth/authorize', {
      key: tenant.key,
      body: { label: 'Payables' },
    });
    const consent = await fetch(new URL(started.body.authorize_url), { redirect: 'manual' });
    const stored = await fetch(new URL(consent.headers.get('location')!));
    if (stored.status !== 201) throw new Error(await stored.text());
  };
  const openSession = async (tenant: Tenant, servers: string[]) =>
    (await gw.request('POST', '/v1/sessions', { key: tenant.key, body: { servers } })).body.id as string;
  const call = (
    tenant: Tenant,
    session: string,
    tool: string,
    args: Record<string, unknown>,
    walletId: string,
    id: string,
  ) =>
    gw.request('POST', `/v1/sessions/${session}/tool-calls`, {
      key: tenant.key,
      body: { tool, arguments: { ...args, gateway_payment: { wallet_id: walletId, attempt_id: id } } },
    });
  const balance = async (tenant: Tenant, walletId: string) =>
    (await gw.request('GET', `/v1/wallets/${walletId}`, { key: tenant.key })).body.balances[0];
  const entries = (walletId: string, id: string) =>
    gw.db.anyFirst(sql.type(z.object({ kind: z.string() }))`
      SELECT kind FROM wallet_ledger_entries WHERE wallet_id = ${walletId} AND attempt_id = ${id} ORDER BY id`);
  const sent = (mock: AuthMock, tenant: Tenant, id: string) =>
    mock.money.requests().filter((r) => r.key === `spend/${tenant.orgId}/${id}`);

  // A bank boleto's line ends with its amount in centavos: 0000012345 is BRL 123.45.
  const BOLETO = `${'2'.repeat(37)}0000012345`;
  const COMPLETING = [
    {
      tool: 'dda-hub.boleto_pay',
      mock: 'auth_oauth',
      currency: 'BRL',
      connect: connectDda,
      args: { linha_digitavel: BOLETO },
      amount: 12_345n,
    },
    {
      tool: 'x402-facilitator.x402_settle',
      mock: 'auth_cdp',
      currency: 'USDC',
      connect: (tenant: Tenant) => connect(tenant, 'x402-facilitator', mockOf('auth_cdp').credentials),
      args: {
        payment_payload: { x402Version: 2, payload: { signature: '0xabc' } },
        payment_requirements: { scheme: 'exact', amount: '250000', payTo: `0x${'ab'.repeat(20)}` },
      },
      amount: 250_000n,
    },
    {
      tool: 'stablecoin-rails.stablecoin_transfer',
      mock: 'auth_jwt_ecdsa',
      currency: 'USDC',
      connect: (tenant: Tenant) => connect(tenant, 'stablecoin-rails', mockOf('auth_jwt_ecdsa').credentials),
      args: { to: `0x${'12'.repeat(20)}`, amount_minor: '1500000', token: 'USDC' },
      amount: 1_500_000n,
    },
    {
      tool: 'freight-quotes.shipping_label_buy',
      mock: 'auth_two_header',
      currency: 'BRL',
      connect: (tenant: Tenant) => connect(tenant, 'freight-quotes', mockOf('auth_two_header').credentials),
      // The provider prices the label; the caller states the quoted price the gateway holds.
      args: { quote_id: 'qt_123', amount_minor: '2890' },
      amount: 2_890n,
    },
  ];

  it.each(COMPLETING)('$tool completes: the amount from its arguments held and debited once', async (c) => {
    const tenant = await gw.createTenant();
    await c.connect(tenant);
    const wallet = await newWallet(gw, tenant, { currency: c.currency });
    await fund(gw, tenant, wallet, 10_000_000, c.currency);
    const session = await openSession(tenant, [c.tool.split('.')[0]!]);
    const id = attempt();
    const r = await call(tenant, session, c.tool, c.args, wallet, id);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      tool_name: c.tool,
      status: 'success',
      attempt_id: id,
      output: { status: 'completed', payment: { provider_payment_id: expect.stringMatching(/^pay_/) } },
    });
    expect(sent(mockOf(c.mock), tenant, id)).toEqual([
      expect.objectContaining({ sends: 1, state: 'completed', arguments: c.args }),
    ]);
    expect(await entries(wallet, id)).toEqual(['hold', 'debit']);
    expect(BigInt((await balance(tenant, wallet)).balance_minor)).toBe(10_000_000n - c.amount);
    await expectBalanced(gw, wallet);
  });

  describe('pix_send', () => {
    const pix = () => mockOf('auth_api_key');
    const pixArgs = { pix_key: 'ana@example.com', amount_minor: '1234' };
    let wallet: string;
    beforeAll(async () => {
      await connect(t, 'pix-psp', API_KEY_SANDBOX);
    });
    beforeEach(async () => {
      wallet = await newWallet(gw, t);
      await fund(gw, t, wallet, 10_000);
    });
    afterEach(() => pix().money.set({ kind: 'normal' }));

    it('asks the provider when it took the payment and never answered: received, so debited', async () => {
      const session = await openSession(t, ['pix-psp']);
      const id = attempt();
      pix().money.set({ kind: 'take_silently', answer: 'hang' });
      // The provider's silence ends at the gateway's own timeout, shortened here to keep the test quick.
      const timeout = gw.config.providerTimeoutMs;
      gw.config.providerTimeoutMs = 300;
      try {
        const r = await call(t, session, 'pix-psp.pix_send', pixArgs, wallet, id);
        expect(r.status).toBe(200);
        expect(r.body).toMatchObject({ status: 'success', output: { status: 'completed' } });
      } finally {
        gw.config.providerTimeoutMs = timeout;
      }
      expect(sent(pix(), t, id)).toEqual([expect.objectContaining({ state: 'completed' })]);
      expect(sent(pix(), t, id)[0]!.sends).toBeGreaterThanOrEqual(1);
      expect(await entries(wallet, id)).toEqual(['hold', 'debit']);
      expect(await balance(t, wallet)).toMatchObject({ balance_minor: '8766', available_minor: '8766' });
      await expectBalanced(gw, wallet);
    });

    it('takes a 409 on the key as no word yet, not a refusal: sent again under the key and debited', async () => {
      const session = await openSession(t, ['pix-psp']);
      const id = attempt();
      pix().script({
        status: 409,
        body: { error: { code: 'idempotency_key_in_use', message: 'Still working' } },
      });
      const r = await call(t, session, 'pix-psp.pix_send', pixArgs, wallet, id);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ status: 'success', output: { status: 'completed' } });
      expect(sent(pix(), t, id)).toEqual([expect.objectContaining({ sends: 1, state: 'completed' })]);
      expect(await entries(wallet, id)).toEqual(['hold', 'debit']);
      expect(await balance(t, wallet)).toMatchObject({ balance_minor: '8766', available_minor: '8766' });
    });

    it("keeps a budget naming the provider's tools: the payment past the cap is denied and never sent", async () => {
      const tenant = await gw.createTenant();
      await connect(tenant, 'pix-psp', API_KEY_SANDBOX);
      const own = await newWallet(gw, tenant);
      await fund(gw, tenant, own, 10_000);
      const rule = await gw.request('POST', '/v1/policies', {
        key: tenant.key,
        body: {
          name: 'pix cap',
          type: 'budget',
          tools: ['pix-psp.*'],
          config: { currency: 'BRL', cap_minor: '2000', window: 'day' },
        },
      });
      expect(rule.status).toBe(201);
      const session = await openSession(tenant, ['pix-psp']);
      const first = attempt();
      const paid = await call(tenant, session, 'pix-psp.pix_send', pixArgs, own, first);
      expect(paid.body).toMatchObject({ status: 'success', output: { status: 'completed' } });
      const second = attempt();
      const capped = await call(tenant, session, 'pix-psp.pix_send', pixArgs, own, second);
      expect(capped.status).toBe(403);
      expect(capped.body).toMatchObject({
        reason: 'budget_exceeded',
        ruleId: rule.body.id,
        status: 'denied',
      });
      expect(sent(pix(), tenant, second)).toEqual([]);
      expect(await entries(own, second)).toEqual([]);
      expect(await balance(tenant, own)).toMatchObject({ balance_minor: '8766', available_minor: '8766' });
    });

    it('refuses with not_connected before any hold when the provider was disconnected', async () => {
      const tenant = await gw.createTenant();
      const connection = await connect(tenant, 'pix-psp', API_KEY_SANDBOX);
      const own = await newWallet(gw, tenant);
      await fund(gw, tenant, own, 10_000);
      const session = await openSession(tenant, ['pix-psp']);
      const deleted = await gw.request('DELETE', `/v1/connections/${connection}`, {
        key: tenant.key,
      });
      expect(deleted.status).toBe(200);
      const id = attempt();
      const r = await call(tenant, session, 'pix-psp.pix_send', pixArgs, own, id);
      expect(r.status).toBe(424);
      expect(r.body.error).toMatchObject({ code: 'not_connected', details: { server_id: 'pix-psp' } });
      expect(sent(pix(), tenant, id)).toEqual([]);
      expect(await entries(own, id)).toEqual([]);
      expect(await balance(tenant, own)).toMatchObject({ balance_minor: '10000', available_minor: '10000' });
    });

    it('refuses a boleto line that carries no amount, writing nothing', async () => {
      const tenant = await gw.createTenant();
      await connectDda(tenant);
      const own = await newWallet(gw, tenant);
      const session = await openSession(tenant, ['dda-hub']);
      const id = attempt();
      const r = await call(
        tenant,
        session,
        'dda-hub.boleto_pay',
        { linha_digitavel: '2'.repeat(47).replace(/.{10}$/, '0'.repeat(10)) },
        own,
        id,
      );
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({
        code: 'invalid_body',
        details: { issues: [{ path: '/arguments/linha_digitavel', keyword: 'minimum' }] },
      });
      expect(
        (await gw.request('GET', `/v1/sessions/${session}/tool-calls`, { key: tenant.key })).body.tool_calls,
      ).toEqual([]);
      expect(sent(mockOf('auth_oauth'), tenant, id)).toEqual([]);
    });

    it('pays over MCP with the SDK client, once, and a second call of the attempt answers the same', async () => {
      const session = await openSession(t, ['pix-psp']);
      const client = new Client({ name: 'gateway-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${gw.url}/v1/sessions/${session}/mcp`), {
          requestInit: { headers: { Authorization: `Bearer ${t.key}` } },
        }),
      );
      try {
        const listed = (await client.listTools()).tools.find((tool) => tool.name === 'pix-psp.pix_send');
        expect(listed?.inputSchema).toMatchObject({
          required: ['pix_key', 'amount_minor', 'gateway_payment'],
          properties: { gateway_payment: { required: ['wallet_id'] } },
        });
        const id = attempt();
        const args = { ...pixArgs, gateway_payment: { wallet_id: wallet, attempt_id: id } };
        const result = await client.callTool({ name: 'pix-psp.pix_send', arguments: args });
        expect(result.isError).toBeFalsy();
        const text = (result.content as Array<{ text: string }>)[0]!.text;
        expect(JSON.parse(text)).toMatchObject({ status: 'completed', attempt_id: id });
        const again = await client.callTool({ name: 'pix-psp.pix_send', arguments: args });
        expect((again.content as Array<{ text: string }>)[0]!.text).toBe(text);
        expect(sent(pix(), t, id)).toEqual([expect.objectContaining({ sends: 1 })]);
        expect(await balance(t, wallet)).toMatchObject({ balance_minor: '8766', available_minor: '8766' });
      } finally {
        await client.close();
      }
    });
  });
});
