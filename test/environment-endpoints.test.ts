// Sandbox and live never cross: each provider runs twice here, the harness's mock as the sandbox endpoint and
// a second mock of the same provider as the live one. A test key's wallet spend, catalog tool call, proxy
// call and payment-link settlement reach only the sandbox; a live key's spend reaches only the live one; a
// live key whose live endpoint is not configured is refused, never sent to the sandbox.
import { startApiKeyMock, API_KEY_SANDBOX } from '../providers/mocks/auth-api-key';
import type { AuthMock } from '../providers/mocks/auth-mock';
import { startPaymentsMock, type PaymentsMock } from '../providers/mocks/payments';
import { startPixPspMock, type PixPspMock } from '../providers/mocks/pix-psp';
import { waitFor } from './support/consents';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { fund, fundDirect, newWallet } from './support/money';

let gw: Gateway;
let test: Tenant;
let live: Tenant;
const sandbox = {
  payments: () => gw.mocks.payments as PaymentsMock,
  pixApi: () => gw.mocks.auth_api_key as unknown as AuthMock,
  psp: () => gw.mocks.pix_psp as PixPspMock,
};
let livePayments: PaymentsMock;
let livePixApi: AuthMock;
let livePsp: PixPspMock;

const seen = (mock: AuthMock) => mock.counts.accepted + mock.counts.refused;
const paymentRequests = (mock: PaymentsMock) => mock.requests().length + mock.statusRequests().length;

beforeAll(async () => {
  gw = await startGateway();
  livePayments = await startPaymentsMock();
  livePixApi = await startApiKeyMock();
  livePsp = await startPixPspMock();
  gw.config.providerLiveUrls.payments = livePayments.url;
  gw.config.providerLiveUrls.auth_api_key = livePixApi.url;
  gw.config.providerLiveUrls.pix_psp = livePsp.url;
  test = await gw.createTenant({ name: 'Sandbox Co' });
  live = await gw.createTenant({ name: 'Live Co', environment: 'live' });
});
afterAll(async () => {
  await gw?.stop();
  await Promise.all([livePayments?.stop(), livePixApi?.stop(), livePsp?.stop()]);
});

let n = 0;
const spend = (walletId: string, tenant: Tenant) => {
  const attemptId = `att-env-${++n}`;
  return gw
    .request('POST', `/v1/wallets/${walletId}/execute`, {
      key: tenant.key,
      body: {
        amount: 12.34,
        currency: 'BRL',
        recipient: 'merchant-42',
        description: 'Office supplies',
        mandate_id: 'mdt_test',
        attempt_id: attemptId,
      },
    })
    .then((r) => ({ r, attemptId }));
};

describe('a test key reaches only the sandbox endpoints', () => {
  it('pays a wallet spend at the sandbox payment provider; the live one hears nothing', async () => {
    const wallet = await newWallet(gw, test);
    await fund(gw, test, wallet, 10_000);
    const { r, attemptId } = await spend(wallet, test);
    expect([r.status, r.body.status]).toEqual([200, 'completed']);
    expect(
      sandbox
        .payments()
        .requests()
        .map((q) => q.reference),
    ).toContain(attemptId);
    expect(paymentRequests(livePayments)).toBe(0);
  });

  it('sends a catalog tool call and a proxy call to the sandbox provider; the live one hears nothing', async () => {
    const connected = await gw.request('POST', '/v1/providers/pix-psp/connections', {
      key: test.key,
      body: { credentials: API_KEY_SANDBOX },
    });
    expect(connected.status).toBe(201);
    const session = await gw.request('POST', '/v1/sessions', {
      key: test.key,
      body: { servers: ['pix-psp'] },
    });
    expect(session.status).toBe(201);
    const before = seen(sandbox.pixApi());

    const call = await gw.request('POST', `/v1/sessions/${session.body.id}/tool-calls`, {
      key: test.key,
      body: { tool: 'pix-psp.pix_key_lookup', arguments: { pix_key: 'loja@acme.test' } },
    });
    expect(call.status).toBe(200);
    expect(call.body.status).toBe('success');
    expect(seen(sandbox.pixApi())).toBe(before + 1);

    const proxied = await gw.request('POST', `/v1/sessions/${session.body.id}/proxy_execute`, {
      key: test.key,
      body: { server_id: 'pix-psp', method: 'GET', path: '/account' },
    });
    expect([proxied.status, proxied.body.status]).toEqual([200, 200]);
    expect(seen(sandbox.pixApi())).toBe(before + 2);
    expect(seen(livePixApi)).toBe(0);
  });

  it("opens and settles a payment link's Pix charge at the sandbox PSP; the live PSP hears nothing", async () => {
    const created = await gw.request('POST', '/v1/payment-links', {
      key: test.key,
      body: {
        title: 'Curso de Pix',
        accepts: [{ rail: 'pix', amount: '25.90', currency: 'BRL', pix: { key: 'loja@acme.test' } }],
      },
    });
    expect(created.status).toBe(201);
    const { slug } = created.body as { slug: string };
    const opened = await gw.request('POST', `/pay/${slug}/payments`, { body: { rail: 'pix' } });
    expect(opened.status).toBe(201);
    expect(sandbox.psp().cobs.get(opened.body.pix.txid)).toBeDefined();
    expect((await sandbox.psp().cobs.pay(opened.body.pix.txid)).webhookStatus).toBe(200);
    await waitFor(
      async () =>
        (await gw.request('GET', `/pay/${slug}/payments/${opened.body.payment_id}`)).body.status ===
        'succeeded',
    );
    expect(livePsp.served()).toBe(0);
  });
});

describe('a live key reaches only the live endpoints', () => {
  it('pays a wallet spend at the live payment provider; the sandbox hears nothing of it', async () => {
    const wallet = await newWallet(gw, live);
    await fundDirect(gw, live, 'live', wallet, 10_000);
    const sandboxBefore = paymentRequests(sandbox.payments());
    const { r, attemptId } = await spend(wallet, live);
    expect([r.status, r.body.status]).toEqual([200, 'completed']);
    expect(livePayments.requests().map((q) => q.reference)).toEqual([attemptId]);
    expect(livePayments.payments()).toHaveLength(1);
    expect(paymentRequests(sandbox.payments())).toBe(sandboxBefore);
  });

  it('refuses a live spend with 503 provider_unavailable when no live payment provider is configured, holding nothing', async () => {
    const wallet = await newWallet(gw, live);
    await fundDirect(gw, live, 'live', wallet, 10_000);
    const sandboxBefore = paymentRequests(sandbox.payments());
    const liveBefore = paymentRequests(livePayments);
    delete gw.config.providerLiveUrls.payments;
    try {
      const { r } = await spend(wallet, live);
      expect(r.status).toBe(503);
      expect(r.body.error).toMatchObject({ code: 'provider_unavailable' });
      expect(r.body.error.message).toContain('PROVIDER_PAYMENTS_LIVE_URL');
    } finally {
      gw.config.providerLiveUrls.payments = livePayments.url;
    }
    const balance = (await gw.request('GET', `/v1/wallets/${wallet}`, { key: live.key })).body.balances[0];
    expect(balance).toMatchObject({ balance_minor: '10000', available_minor: '10000' });
    expect(paymentRequests(sandbox.payments())).toBe(sandboxBefore);
    expect(paymentRequests(livePayments)).toBe(liveBefore);
  });
});
