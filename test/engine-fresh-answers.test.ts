// One fresh answer per attempt when the request that claimed it was told to come back: with the worker
// gone, the claimant's bounded wait runs out (409 attempt_in_progress); once the attempt settles, the first
// presentation that finds it gets the fresh answer and every later one a replay of the same bytes. For both
// families that answer callers synchronously (wallet execute, consumer spend). On the dev server, whose
// refusal of an update no worker accepts is the real server's.
import type { PaymentsMock } from '../providers/mocks/payments';
import { newAttempt, pixSpend, readyConsumer } from './support/consumer-spend';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { fund, newWallet } from './support/money';

describe('a claimant whose wait ran out', () => {
  let gw: Gateway;
  let t: Tenant;
  beforeAll(async () => {
    gw = await startGateway({ temporal: 'dev' });
    t = await gw.createTenant();
  });
  afterAll(async () => {
    await gw?.stop();
  });

  it('leaves the fresh answer to the first presentation that finds the attempt settled, in both families', async () => {
    const wallet = await newWallet(gw, t);
    await fund(gw, t, wallet, 10_000);
    const consumer = await readyConsumer(gw, t, { fundMinor: 10_000 });
    const walletBody = {
      amount: 5,
      currency: 'BRL',
      recipient: 'merchant-42',
      description: 'late',
      mandate_id: 'mdt_test',
      attempt_id: newAttempt(),
    };
    const spendBody = pixSpend(consumer, { amount_minor: 300 });
    const executeWallet = () =>
      gw.request('POST', `/v1/wallets/${wallet}/execute`, { key: t.key, body: walletBody });
    const spend = () => gw.request('POST', '/v1/consumer-payments/execute', { key: t.key, body: spendBody });

    await gw.stopWorker();
    const [walletClaim, spendClaim] = await Promise.all([executeWallet(), spend()]);
    expect([walletClaim.status, walletClaim.body.error?.code]).toEqual([409, 'attempt_in_progress']);
    expect([spendClaim.status, spendClaim.body.error?.code]).toEqual([409, 'attempt_in_progress']);
    await gw.startWorker();

    let walletFirst = await executeWallet();
    for (let i = 0; i < 10 && walletFirst.status === 409; i++) walletFirst = await executeWallet();
    expect([walletFirst.status, walletFirst.body.status]).toEqual([200, 'completed']);
    expect(walletFirst.headers.get('idempotent-replayed')).toBeNull();
    const walletAgain = await Promise.all([executeWallet(), executeWallet()]);
    for (const r of walletAgain)
      expect([r.headers.get('idempotent-replayed'), r.text]).toEqual(['true', walletFirst.text]);
    expect(
      (gw.mocks.payments as PaymentsMock).payments().filter((p) => p.reference === walletBody.attempt_id),
    ).toHaveLength(1);

    let spendFirst = await spend();
    for (let i = 0; i < 10 && spendFirst.status === 409; i++) spendFirst = await spend();
    expect([spendFirst.status, spendFirst.body.idempotent_replay]).toEqual([200, false]);
    expect(spendFirst.headers.get('idempotent-replayed')).toBeNull();
    const spendAgain = await Promise.all([spend(), spend()]);
    for (const r of spendAgain) {
      expect([r.status, r.body.idempotent_replay, r.headers.get('idempotent-replayed')]).toEqual([
        200,
        true,
        'true',
      ]);
      expect(r.body).toEqual({ ...spendFirst.body, idempotent_replay: true });
    }
    expect(spendAgain[0].text).toBe(spendAgain[1].text);
  }, 120_000);
});
