// Histories of the attempt engine's newer paths, replayed at once on the current bundle and (with
// RECORD_HISTORIES=1) saved under test/replay/ beside the older ones, so later versions must keep replaying
// them: a wallet payment found by the provider status call, one held through the provider's silence until it
// was presented again, Pix spends pulled through a pix-consent funding source (paid, and refused), one whose
// dispatch was lost and sent again when presented, and one the PSP settled later (its notice a signal). The
// wallet paths recorded before the one engine (spend-attempt-provider-*) and the consent pulls recorded as
// consumerSpendAttempt (consumer-spend-consent-pull*) keep replaying from their files.
import type { PaymentsMock } from '../providers/mocks/payments';
import type { PixPspMock } from '../providers/mocks/pix-psp';
import { workflowIds } from '../contracts/workflow-ids';
import { attestation, createConsent, createConsumer, intent } from './support/consents';
import { pixSpend, readyConsumer } from './support/consumer-spend';
import { localActivities, replayFinished, scheduledActivities } from './support/histories';
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';
import { fund, newWallet } from './support/money';

describe.each(TEMPORAL_SERVERS)('attempt engine histories on the %s server', (server) => {
  let gw: Gateway;
  let tenant: Tenant;
  let previousTimeout: string | undefined;
  beforeAll(async () => {
    previousTimeout = process.env.PROVIDER_TIMEOUT_MS;
    process.env.PROVIDER_TIMEOUT_MS = '300';
    gw = await startGateway({ temporal: server });
    tenant = await gw.createTenant();
  });
  afterAll(async () => {
    await gw?.stop();
    if (previousTimeout === undefined) delete process.env.PROVIDER_TIMEOUT_MS;
    else process.env.PROVIDER_TIMEOUT_MS = previousTimeout;
  });
  const name = (label: string) => `${label}.${server}`;
  let n = 0;
  const attemptId = (label: string) => `rpl-${label}-${Date.now()}-${++n}`;
  const walletExecute = (wallet: string, attempt: string) =>
    gw.request('POST', `/v1/wallets/${wallet}/execute`, {
      key: tenant.key,
      body: {
        amount: 12.34,
        currency: 'BRL',
        recipient: 'vendor-9',
        description: 'Server rack',
        mandate_id: 'mdt_1',
        attempt_id: attempt,
      },
    });

  it('replays a wallet execute the provider made without answering, found by the status call', async () => {
    const wallet = await newWallet(gw, tenant);
    await fund(gw, tenant, wallet, 10_000);
    const attempt = attemptId('status');
    (gw.mocks.payments as PaymentsMock).script(attempt, { outcome: 'paid_timeout' });
    let result = await walletExecute(wallet, attempt);
    for (let i = 0; i < 5 && result.status === 409; i += 1) result = await walletExecute(wallet, attempt);
    expect([result.status, result.body.status]).toEqual([200, 'completed']);
    const { history } = await replayFinished(
      gw,
      workflowIds.spend(tenant.orgId, attempt),
      name('attempt-wallet-provider-status'),
    );
    expect(scheduledActivities(history)).toEqual(['lookupAttempt']);
    expect(localActivities(history)).toContain('decideAttempt');
  });

  it("replays a wallet execute held through the provider's silence until it was presented again", async () => {
    const wallet = await newWallet(gw, tenant);
    await fund(gw, tenant, wallet, 10_000);
    const attempt = attemptId('silent');
    const mock = gw.mocks.payments as PaymentsMock;
    mock.script(attempt, { outcome: 'paid_timeout' });
    mock.statusOutage(true);
    try {
      const unsure = await walletExecute(wallet, attempt);
      expect([unsure.status, unsure.body.error.code]).toEqual([409, 'attempt_in_progress']);
    } finally {
      mock.statusOutage(false);
    }
    let result = await walletExecute(wallet, attempt);
    for (let i = 0; i < 5 && result.status === 409; i += 1) result = await walletExecute(wallet, attempt);
    expect([result.status, result.body.status]).toEqual([200, 'completed']);
    const { history } = await replayFinished(
      gw,
      workflowIds.spend(tenant.orgId, attempt),
      name('attempt-wallet-provider-uncertain'),
    );
    expect(scheduledActivities(history)).toEqual(['lookupAttempt', 'lookupAttempt']);
    expect(localActivities(history)).toContain('decideAttempt');
  });

  /** A consumer whose mandate is bound to a pix-consent funding source; its sub-account holds nothing. */
  async function consentSpend(amount: number) {
    const consumer = await createConsumer(gw, tenant.key);
    const consent = await createConsent(gw, tenant.key, { surface: 'partner', intent: intent() });
    const submitted = await gw.request('POST', `/v1/consents/${consent.token}/submit`, {
      key: tenant.key,
      body: {
        consumer_id: consumer.id,
        rail: 'pix-consent',
        display_label: 'Pix consent',
        attestation: attestation(),
      },
    });
    expect(submitted.status).toBe(201);
    const body = pixSpend(
      {
        consumerId: consumer.id,
        mandateId: submitted.body.mandate_id,
        mandate: submitted.body.mandate,
        signature: submitted.body.signature,
        walletId: '',
        receiptSecret: '',
      },
      { amount_minor: amount },
    );
    return body;
  }

  it('replays a Pix spend pulled through a pix-consent funding source', async () => {
    const body = await consentSpend(3_000);
    const paid = await gw.request('POST', '/v1/consumer-payments/execute', { key: tenant.key, body });
    expect([paid.status, paid.body.status]).toEqual([200, 'completed']);
    const { history } = await replayFinished(
      gw,
      workflowIds.consumerSpend(tenant.orgId, body.attempt_id),
      name('attempt-consumer-consent-pull'),
    );
    expect(scheduledActivities(history)).toEqual([]);
    expect(localActivities(history)).toEqual(['decideAttempt']);
  });

  it('replays a pix-consent pull the PSP refused', async () => {
    const body = await consentSpend(3_000);
    (gw.mocks.pix_psp as PixPspMock).script(body.attempt_id, { outcome: 'refuse', reason: 'AM04' });
    const refused = await gw.request('POST', '/v1/consumer-payments/execute', { key: tenant.key, body });
    expect([refused.status, refused.body.error.code]).toEqual([422, 'psp_refused']);
    await replayFinished(
      gw,
      workflowIds.consumerSpend(tenant.orgId, body.attempt_id),
      name('attempt-consumer-consent-pull-refused'),
    );
  });

  it('replays a Pix spend whose dispatch was lost, resent once the caller presented it again', async () => {
    const c = await readyConsumer(gw, tenant, { fundMinor: 10_000 });
    const body = pixSpend(c, { amount_minor: 1_500 });
    const psp = gw.mocks.pix_psp as PixPspMock;
    psp.script(body.attempt_id, { outcome: 'lost' });
    const execute = () => gw.request('POST', '/v1/consumer-payments/execute', { key: tenant.key, body });
    const uncertain = await execute();
    expect([uncertain.status, uncertain.body.error.code]).toEqual([502, 'psp_dispatch_uncertain']);
    psp.script(body.attempt_id, { outcome: 'succeed' });
    let resolved = await execute();
    for (let i = 0; i < 10 && resolved.status === 409; i += 1) resolved = await execute();
    expect([resolved.status, resolved.body.status]).toEqual([200, 'completed']);
    const { history } = await replayFinished(
      gw,
      workflowIds.consumerSpend(tenant.orgId, body.attempt_id),
      name('attempt-consumer-lost-resent'),
    );
    // Uncertain at once (stored for the caller), asked when presented again, then sent again.
    expect(scheduledActivities(history)).toEqual(['lookupAttempt', 'lookupAttempt']);
    // The first send in the folded step, the second on its own.
    expect(localActivities(history)).toEqual(['decideAttempt', 'sendAttempt', 'settleAttempt']);
  });

  it('replays a Pix spend the PSP accepted and settled later, looked up once it settled', async () => {
    const c = await readyConsumer(gw, tenant, { fundMinor: 10_000 });
    const body = pixSpend(c, { amount_minor: 1_700 });
    (gw.mocks.pix_psp as PixPspMock).script(body.attempt_id, {
      outcome: 'succeed',
      settle: 'webhook',
      settleDelayMs: 20,
    });
    const execute = () => gw.request('POST', '/v1/consumer-payments/execute', { key: tenant.key, body });
    let paid = await execute();
    for (let i = 0; i < 10 && paid.status === 409; i += 1) paid = await execute();
    expect([paid.status, paid.body.status]).toEqual([200, 'completed']);
    expect(paid.body.audit.map((s: { detail: string }) => s.detail)).toContainEqual(
      expect.stringMatching(/waiting for settlement$/),
    );
    const { history } = await replayFinished(
      gw,
      workflowIds.consumerSpend(tenant.orgId, body.attempt_id),
      name('attempt-consumer-settled-later'),
    );
    expect(scheduledActivities(history)).toContain('lookupAttempt');
    // Accepted in the folded step, settled in a step of its own once the lookup found it settled.
    expect(localActivities(history)).toEqual(['decideAttempt', 'settleAttempt']);
  });
});
