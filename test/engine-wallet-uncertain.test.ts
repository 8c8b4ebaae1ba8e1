// Wallet execute when the payment provider never answers: the attempt asks the provider what became of
// its idempotency key before it decides anything. A payment the provider made completes (debit), one it
// never received is released, and while even the status call cannot answer the money stays held and the
// caller is told to present the attempt again, which asks once more. Money that may have left is never
// released. On both Temporal servers.
import type { PaymentsMock } from '../providers/mocks/payments';
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';
import { expectBalanced, fund, newWallet } from './support/money';

describe.each(TEMPORAL_SERVERS)('a wallet payment whose provider never answered (%s server)', (server) => {
  let gw: Gateway;
  let t: Tenant;
  let mock: PaymentsMock;
  let previousTimeout: string | undefined;
  beforeAll(async () => {
    previousTimeout = process.env.PROVIDER_TIMEOUT_MS;
    process.env.PROVIDER_TIMEOUT_MS = '300';
    gw = await startGateway({ temporal: server });
    mock = gw.mocks.payments as PaymentsMock;
    t = await gw.createTenant();
  });
  afterAll(async () => {
    await gw?.stop();
    if (previousTimeout === undefined) delete process.env.PROVIDER_TIMEOUT_MS;
    else process.env.PROVIDER_TIMEOUT_MS = previousTimeout;
  });

  let n = 0;
  const attempt = () => `att-unc-${server}-${Date.now()}-${++n}`;
  const body = (attemptId: string) => ({
    amount: 12.34,
    currency: 'BRL',
    recipient: 'merchant-42',
    description: 'Office supplies',
    mandate_id: 'mdt_test',
    purpose: 'supplies',
    attempt_id: attemptId,
  });
  const execute = (walletId: string, attemptId: string) =>
    gw.request('POST', `/v1/wallets/${walletId}/execute`, { key: t.key, body: body(attemptId) });
  const balance = async (walletId: string) =>
    (await gw.request('GET', `/v1/wallets/${walletId}`, { key: t.key })).body.balances[0];
  const kinds = async (walletId: string) =>
    (await gw.request('GET', `/v1/wallets/${walletId}/ledger-entries`, { key: t.key })).body.entries
      .map((e: { kind: string }) => e.kind)
      .reverse();
  const paymentsFor = (reference: string) => mock.payments().filter((p) => p.reference === reference);
  const keyOf = (attemptId: string) => `spend/${t.orgId}/${attemptId}`;

  it('completes a payment the provider made without ever answering, found by its idempotency key', async () => {
    const wallet = await newWallet(gw, t);
    await fund(gw, t, wallet, 5_000);
    const id = attempt();
    mock.script(id, { outcome: 'paid_timeout' });
    let r = await execute(wallet, id);
    for (let i = 0; i < 5 && r.status === 409; i += 1) r = await execute(wallet, id);
    expect([r.status, r.body.status]).toEqual([200, 'completed']);
    expect(paymentsFor(id)).toHaveLength(1);
    expect(r.body.payment.provider_payment_id).toBe(paymentsFor(id)[0].id);
    expect(mock.statusRequests()).toContain(keyOf(id));
    expect(await kinds(wallet)).toEqual(['fund', 'hold', 'debit']);
    expect(await balance(wallet)).toMatchObject({ balance_minor: '3766', available_minor: '3766' });
    await expectBalanced(gw, wallet);
  });

  it('keeps the money held while the provider cannot say, answers attempt_in_progress, and settles when the attempt is presented again', async () => {
    const wallet = await newWallet(gw, t);
    await fund(gw, t, wallet, 5_000);
    const id = attempt();
    mock.script(id, { outcome: 'paid_timeout' });
    mock.statusOutage(true);
    try {
      const unsure = await execute(wallet, id);
      expect([unsure.status, unsure.body.error.code, unsure.headers.get('retry-after')]).toEqual([
        409,
        'attempt_in_progress',
        '1',
      ]);
      expect(mock.statusRequests()).toContain(keyOf(id));
      // Presented again while the provider still cannot say: still held, never released.
      const again = await execute(wallet, id);
      expect([again.status, again.body.error.code]).toEqual([409, 'attempt_in_progress']);
      expect(await balance(wallet)).toMatchObject({ balance_minor: '5000', available_minor: '3766' });
      expect(await kinds(wallet)).toEqual(['fund', 'hold']);
    } finally {
      mock.statusOutage(false);
    }
    let r = await execute(wallet, id);
    for (let i = 0; i < 5 && r.status === 409; i += 1) r = await execute(wallet, id);
    expect([r.status, r.body.status]).toEqual([200, 'completed']);
    expect(paymentsFor(id)).toHaveLength(1);
    expect(r.body.payment.provider_payment_id).toBe(paymentsFor(id)[0].id);
    expect(await kinds(wallet)).toEqual(['fund', 'hold', 'debit']);
    await expectBalanced(gw, wallet);
  });

  it('releases the hold only once the provider says it never received the payment', async () => {
    const wallet = await newWallet(gw, t);
    await fund(gw, t, wallet, 5_000);
    const id = attempt();
    mock.script(id, { outcome: 'timeout' });
    const r = await execute(wallet, id);
    expect([r.status, r.body.status, r.body.failure.code]).toEqual([200, 'failed', 'provider_unreachable']);
    expect(mock.statusRequests()).toContain(keyOf(id));
    expect(paymentsFor(id)).toHaveLength(0);
    expect(await kinds(wallet)).toEqual(['fund', 'hold', 'release']);
    expect(await balance(wallet)).toMatchObject({ balance_minor: '5000', available_minor: '5000' });
  });
});
