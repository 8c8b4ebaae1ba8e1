// Catalog money tools (pix_send, ted_send) called in a session, on both Temporal servers: each call is a
// wallet spend attempt of the one attempt engine. It holds, sends the call through the connection under
// the attempt's idempotency key, and debits or releases on the provider's word; a replay answers the
// stored call without a second send; policy rules naming the tool deny or hold it for a person; and a
// send whose answer never came is settled by asking the provider what became of the key.
import { sql } from 'slonik';
import { z } from 'zod';
import { API_KEY_SANDBOX } from '../providers/mocks/auth-api-key';
import type { AuthMock } from '../providers/mocks/auth-mock';
import { CERT_SANDBOX } from '../providers/mocks/auth-cert';
import { startNoneMock } from '../providers/mocks/auth-none';
import { catalogServer } from '../domain/providers/catalog';
import { createConnection } from '../domain/providers/connections';
import { keyServiceFor } from '../domain/vault/select';
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';
import { expectBalanced, fund, newWallet } from './support/money';

interface MoneyToolCase {
  tool: string;
  server: string;
  mock: string;
  args: (amountMinor: string) => Record<string, unknown>;
}

const TOOLS: MoneyToolCase[] = [
  {
    tool: 'pix-psp.pix_send',
    server: 'pix-psp',
    mock: 'auth_api_key',
    args: (amount_minor) => ({ pix_key: 'ana@example.com', amount_minor, description: 'Supplies' }),
  },
  {
    tool: 'ted-bank.ted_send',
    server: 'ted-bank',
    mock: 'auth_cert',
    args: (amount_minor) => ({
      bank: '341',
      branch: '1234',
      account: '12345-6',
      tax_id: '12345678901',
      name: 'Ana Souza',
      amount_minor,
    }),
  },
];

describe.each(TEMPORAL_SERVERS)('catalog money tools on the %s server', (temporal) => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway({ temporal });
  });
  afterAll(async () => {
    await gw?.stop();
  });

  describe.each(TOOLS)('$tool', ({ tool, server, mock: mockName, args }) => {
    let t: Tenant;
    let mock: AuthMock;
    let n = 0;
    const attempt = () => `pt-${temporal}-${server}-${Date.now()}-${++n}`;

    const tenantWith = async (): Promise<Tenant> => {
      const tenant = await gw.createTenant();
      if (server === 'ted-bank') {
        // The bank issues client certificates to live accounts only, so the API refuses one for a test key;
        // the sandbox's certificate is stored as a connect call would store it, to reach the mTLS mock.
        await createConnection(gw.db, keyServiceFor(gw.config.vault), tenant, {
          server: catalogServer('ted-bank')!,
          environment: 'test',
          label: null,
          secrets: CERT_SANDBOX(),
          settings: {},
        });
        return tenant;
      }
      const r = await gw.request('POST', `/v1/providers/${server}/connections`, {
        key: tenant.key,
        body: { credentials: API_KEY_SANDBOX },
      });
      if (r.status !== 201) throw new Error(r.text);
      return tenant;
    };
    let plainSandbox: AuthMock | undefined;
    beforeAll(async () => {
      mock = gw.mocks[mockName] as unknown as AuthMock;
      if (server === 'ted-bank') {
        // The gateway trusts only public roots, and the mTLS sandbox's server certificate is the test CA's:
        // TED's sandbox is served over plain HTTP here (the certificate injection is auth-injection's test).
        plainSandbox = await startNoneMock();
        mock = plainSandbox;
        gw.config.providerUrls.auth_cert = plainSandbox.url;
      }
      t = await tenantWith();
    });
    afterAll(async () => {
      if (plainSandbox) {
        gw.config.providerUrls.auth_cert = gw.mocks.auth_cert!.url;
        await plainSandbox.stop();
      }
    });
    afterEach(() => mock.money.set({ kind: 'normal' }));

    const openSession = async (tenant: Tenant) =>
      (await gw.request('POST', '/v1/sessions', { key: tenant.key, body: { servers: [server] } })).body
        .id as string;
    const call = (tenant: Tenant, session: string, walletId: string, id: string, amount = '1234') =>
      gw.request('POST', `/v1/sessions/${session}/tool-calls`, {
        key: tenant.key,
        body: {
          tool,
          arguments: { ...args(amount), gateway_payment: { wallet_id: walletId, attempt_id: id } },
        },
      });
    const balance = async (tenant: Tenant, walletId: string) =>
      (await gw.request('GET', `/v1/wallets/${walletId}`, { key: tenant.key })).body.balances[0];
    const sent = (tenant: Tenant, id: string) =>
      mock.money.requests().filter((r) => r.key === `spend/${tenant.orgId}/${id}`);
    const entries = (walletId: string, id: string) =>
      gw.db.anyFirst(sql.type(z.object({ kind: z.string() }))`
        SELECT kind FROM wallet_ledger_entries WHERE wallet_id = ${walletId} AND attempt_id = ${id} ORDER BY id`);
    const funded = async (tenant: Tenant) => {
      const wallet = await newWallet(gw, tenant);
      await fund(gw, tenant, wallet, 10_000);
      return wallet;
    };

    it('pays through the provider once, debits exactly the amount and replays the identical call', async () => {
      const wallet = await funded(t);
      const session = await openSession(t);
      const id = attempt();
      const r = await call(t, session, wallet, id);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        tool_name: tool,
        server_id: server,
        status: 'success',
        attempt_id: id,
        routing: { engine: 'wallet_execute', wallet_id: wallet, provider: server },
        output: {
          status: 'completed',
          attempt_id: id,
          payment: { provider_payment_id: expect.stringMatching(/^pay_/) },
        },
      });
      expect(r.body.output.payment.provider_payment_id).toBe(
        (sent(t, id)[0]!.answer.body as { id: string }).id,
      );
      expect(await balance(t, wallet)).toMatchObject({ balance_minor: '8766', available_minor: '8766' });
      expect(await entries(wallet, id)).toEqual(['hold', 'debit']);
      // The provider got the tool's own arguments, the gateway's payment argument taken off.
      expect(sent(t, id)).toEqual([expect.objectContaining({ sends: 1, arguments: args('1234') })]);

      const again = await call(t, session, wallet, id);
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(r.body);
      expect(sent(t, id)).toEqual([expect.objectContaining({ sends: 1 })]);
      expect(await entries(wallet, id)).toEqual(['hold', 'debit']);
      await expectBalanced(gw, wallet);
      const types = await gw.db.anyFirst(sql.type(z.object({ type: z.string() }))`
        SELECT type FROM events WHERE org_id = ${t.orgId} AND data->>'attempt_id' = ${id} ORDER BY id`);
      expect(types.filter((type) => type.startsWith('tool_call.'))).toEqual(['tool_call.succeeded']);
      expect(types).toContain('payment.succeeded');
    });

    it('refuses the same attempt_id with other arguments with attempt_id_conflict, sending nothing more', async () => {
      const wallet = await funded(t);
      const session = await openSession(t);
      const id = attempt();
      expect((await call(t, session, wallet, id)).status).toBe(200);
      const changed = await call(t, session, wallet, id, '999');
      expect(changed.status).toBe(409);
      expect(changed.body.error.code).toBe('attempt_id_conflict');
      expect(sent(t, id)).toEqual([expect.objectContaining({ sends: 1 })]);
      expect(await balance(t, wallet)).toMatchObject({ balance_minor: '8766' });
    });

    it('is denied by a rule naming the tool: nothing held and the provider never called', async () => {
      const tenant = await tenantWith();
      const wallet = await funded(tenant);
      const rule = await gw.request('POST', '/v1/policies', {
        key: tenant.key,
        body: { name: 'no provider payments', type: 'deny', tools: [`${server}.*`], config: {} },
      });
      expect(rule.status).toBe(201);
      const session = await openSession(tenant);
      const id = attempt();
      const r = await call(tenant, session, wallet, id);
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({
        reason: 'denied_by_rule',
        ruleId: rule.body.id,
        status: 'denied',
        tool_call_id: expect.stringMatching(/^tc_/),
      });
      expect(sent(tenant, id)).toEqual([]);
      expect(await entries(wallet, id)).toEqual([]);
      expect(await balance(tenant, wallet)).toMatchObject({
        balance_minor: '10000',
        available_minor: '10000',
      });
      const [recorded] = (await gw.request('GET', `/v1/sessions/${session}/tool-calls`, { key: tenant.key }))
        .body.tool_calls;
      expect(recorded).toMatchObject({ status: 'error', error_code: 'denied_by_rule', attempt_id: id });
    });

    it('holds the exact call for approval and sends it once after a person approves', async () => {
      const tenant = await tenantWith();
      const wallet = await funded(tenant);
      await gw.request('POST', '/v1/policies', {
        key: tenant.key,
        body: { name: 'a person pays', type: 'approval-required', tools: [tool], config: {} },
      });
      const session = await openSession(tenant);
      const id = attempt();
      const held = await call(tenant, session, wallet, id);
      expect(held.status).toBe(403);
      expect(held.body).toMatchObject({
        reason: 'approval_required',
        status: 'requires-approval',
        approval_id: expect.stringMatching(/^apv_/),
      });
      expect(sent(tenant, id)).toEqual([]);
      const approval = await gw.request('GET', `/v1/approvals/${held.body.approval_id}`, { key: tenant.key });
      expect(approval.body).toMatchObject({
        tool_name: tool,
        tool_input: { ...args('1234'), attempt_id: id },
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
        status = await gw.request('GET', `/v1/approvals/${held.body.approval_id}/status`, {
          key: tenant.key,
        });
      expect(status.body.approval_status).toBe('approved');
      expect(sent(tenant, id)).toEqual([expect.objectContaining({ sends: 1, state: 'completed' })]);
      expect(await balance(tenant, wallet)).toMatchObject({ balance_minor: '8766' });
      expect(await entries(wallet, id)).toEqual(['hold', 'debit']);
      await expectBalanced(gw, wallet);
    });

    it("releases the hold on the provider's refusal and answers its code, the balance unchanged", async () => {
      const wallet = await funded(t);
      const session = await openSession(t);
      const id = attempt();
      mock.money.set({ kind: 'refuse', status: 422, code: 'beneficiary_blocked', message: 'Blocked' });
      const r = await call(t, session, wallet, id);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        status: 'error',
        error_code: 'payment_failed',
        output: { status: 'failed', failure: { code: 'beneficiary_blocked', message: 'Blocked' } },
      });
      expect(await entries(wallet, id)).toEqual(['hold', 'release']);
      expect(await balance(t, wallet)).toMatchObject({ balance_minor: '10000', available_minor: '10000' });
      expect(sent(t, id)).toEqual([expect.objectContaining({ sends: 1, state: 'refused' })]);
      await expectBalanced(gw, wallet);
    });

    it('asks the provider when it took the payment but answered 500: received, so debited', async () => {
      const wallet = await funded(t);
      const session = await openSession(t);
      const id = attempt();
      mock.money.set({ kind: 'take_silently', answer: 500 });
      const lookups = mock.money.lookups();
      const r = await call(t, session, wallet, id);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ status: 'success', output: { status: 'completed' } });
      expect(r.body.output.payment.provider_payment_id).toBe(
        (sent(t, id)[0]!.answer.body as { id: string }).id,
      );
      expect(mock.money.lookups()).toBeGreaterThan(lookups);
      expect(sent(t, id)).toHaveLength(1);
      expect(await entries(wallet, id)).toEqual(['hold', 'debit']);
      expect(await balance(t, wallet)).toMatchObject({ balance_minor: '8766', available_minor: '8766' });
      await expectBalanced(gw, wallet);
    });

    it('asks the provider when the payment never reached it: not received, so released', async () => {
      const wallet = await funded(t);
      const session = await openSession(t);
      const id = attempt();
      mock.money.set({ kind: 'lose' });
      const r = await call(t, session, wallet, id);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        status: 'error',
        output: { status: 'failed', failure: { code: 'provider_unreachable' } },
      });
      expect(sent(t, id)).toEqual([]);
      expect(await entries(wallet, id)).toEqual(['hold', 'release']);
      expect(await balance(t, wallet)).toMatchObject({ balance_minor: '10000', available_minor: '10000' });
      await expectBalanced(gw, wallet);
    });
  });
});
