// Every workflow but the money ones replays its histories on the current bundle: the main paths of each
// are driven through HTTP (or started as their Temporal Schedule starts them) on both Temporal servers,
// each history replayed at once in its saved form, and (RECORD_HISTORIES=1, `npm run record-histories`)
// saved under test/replay/platform/. The saved histories of every workflow are replayed too, and a
// workflow the worker registers with no recorded history fails the coverage check.
process.env.PRELUDE_API_KEY = 'prelude_test_key_123';

import { Worker } from '@temporalio/worker';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { sql } from 'slonik';
import { z } from 'zod';
import { workflowIds } from '../contracts/workflow-ids';
import { ddaWorkflowId } from '../contracts/dda-messages';
import { tokenDigest } from '../domain/consents/tokens';
import type { DdaMock } from '../providers/mocks/dda';
import type { DevSenderMock } from '../providers/mocks/otp-dev';
import type { PixPspMock } from '../providers/mocks/pix-psp';
import type { PreludeMock } from '../providers/mocks/prelude';
import { API_KEY_SANDBOX } from '../providers/mocks/auth-api-key';
import { createConsent, intent, partnerMandate, waitFor } from './support/consents';
import { newCpf, register, remove, verifiedConsumer } from './support/dda';
import { emitEvent } from './support/events';
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';
import {
  localActivities,
  PLATFORM_REPLAY_DIR,
  recordedHistories,
  recordFinished,
  registeredWorkflowTypes,
  everyRecordedHistory,
  replayBundle,
  scheduledActivities,
} from './support/histories';
import { fund, newWallet } from './support/money';
import { startReceiver, type Receiver } from './support/receiver';
import { payingFetch } from './support/x402-buyer';

/** Waits until the workflow exists (some are started by another workflow or by the event dispatcher). */
const started = (gw: Gateway, workflowId: string) =>
  waitFor(() =>
    gw.deps.temporal.client.workflow
      .getHandle(workflowId)
      .describe()
      .then(
        () => true,
        () => false,
      ),
  );

async function hostedMandate(gw: Gateway, t: Tenant, intentChanges: Record<string, unknown> = {}) {
  const consent = await createConsent(gw, t.key, { intent: intent(intentChanges) });
  const submitted = await gw.request('POST', `/v1/consents/${consent.token}/submit`, {
    key: t.key,
    body: {},
  });
  if (submitted.status !== 201) throw new Error(submitted.text);
  return { token: consent.token, mandateId: submitted.body.mandate_id as string };
}

async function paymentLink(gw: Gateway, t: Tenant) {
  const created = await gw.request('POST', '/v1/payment-links', {
    key: t.key,
    body: {
      title: 'Curso de Pix',
      accepts: [{ rail: 'pix', amount: '25.90', currency: 'BRL', pix: { key: 'loja@acme.test' } }],
    },
  });
  if (created.status !== 201) throw new Error(created.text);
  const opened = await gw.request('POST', `/pay/${created.body.slug}/payments`, { body: { rail: 'pix' } });
  if (opened.status !== 201) throw new Error(opened.text);
  return {
    workflowId: workflowIds.linkPayment(created.body.id, opened.body.payment_id),
    txid: opened.body.pix.txid as string,
  };
}

async function topup(gw: Gateway, t: Tenant, amountMinor: string) {
  const wallet = await newWallet(gw, t);
  const opened = await gw.request('POST', `/v1/wallets/${wallet}/topups`, {
    key: t.key,
    body: { method: 'pix', amount_minor: amountMinor },
  });
  if (opened.status !== 201) throw new Error(opened.text);
  return {
    workflowId: workflowIds.walletTopup(t.orgId, opened.body.id),
    txid: opened.body.pix.txid as string,
  };
}

async function webhookEndpoint(gw: Gateway, t: Tenant, url: string) {
  const created = await gw.request('POST', '/v1/webhook-endpoints', {
    key: t.key,
    body: { name: 'orders', event: 'payment.succeeded', webhook_url: url },
  });
  if (created.status !== 201) throw new Error(created.text);
  return created.body.id as string;
}

/** The endpoint's deliveries once `done` holds (the worker writes them after the HTTP call returns). */
async function deliveriesOnce(
  gw: Gateway,
  t: Tenant,
  endpointId: string,
  done: (rows: Array<{ id: string; chain_id: string; status: string }>) => boolean,
) {
  let rows: Array<{ id: string; chain_id: string; status: string }> = [];
  await waitFor(async () => {
    rows = (await gw.request('GET', `/v1/webhook-endpoints/${endpointId}/deliveries`, { key: t.key })).body
      .deliveries;
    return done(rows);
  }, 20_000);
  return rows;
}

describe.each(TEMPORAL_SERVERS)('platform workflow histories on the %s server', (server) => {
  let gw: Gateway;
  let tenant: Tenant;
  let receiver: Receiver;
  beforeAll(async () => {
    gw = await startGateway({ temporal: server, chain: true });
    tenant = await gw.createTenant();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.stop();
    await gw?.stop();
  });
  const name = (label: string) => `${label}.${server}`;

  describe('workerProbe', () => {
    it('replays the readiness probe', async () => {
      const probe = await gw.operator('GET', '/v1/ops/readiness');
      expect([probe.status, probe.body.status]).toEqual([200, 'ok']);
      const { history, result } = await recordFinished(gw, probe.body.workflow_id, name('worker-probe-ok'));
      expect(result).toMatchObject({ schema_version: probe.body.schema_version });
      expect(scheduledActivities(history)).toEqual(['probeDatabase']);
    });
  });

  describe('cardMint', () => {
    it('replays a card mint flow that registered the gateway, created the card at the issuer and recorded it', async () => {
      const wallet = await newWallet(gw, tenant);
      const created = await gw.request('POST', '/v1/cards', { key: tenant.key, body: { wallet_id: wallet } });
      expect(created.status).toBe(201);
      const { history, result } = await recordFinished(
        gw,
        workflowIds.cardMint(created.body.mint_flow_id),
        name('card-mint-minted'),
      );
      expect(result).toEqual({ status: 'minted', cardId: created.body.id });
      expect(scheduledActivities(history)).toEqual([
        'registerIssuerEndpoint',
        'createIssuerCard',
        'recordMintedCard',
      ]);
    });
  });

  describe('the sweeps', () => {
    it('replays the approval sweep the operator ran', async () => {
      const swept = await gw.operator('POST', '/v1/ops/approvals/sweep');
      expect(swept.status).toBe(200);
      const runId = `${workflowIds.approvalSweep()}/${swept.headers.get('x-request-id')}`;
      const { history, result } = await recordFinished(gw, runId, name('approval-sweep-ran'));
      expect(result).toEqual(swept.body);
      expect(scheduledActivities(history)).toEqual(['sweepApprovalsActivity']);
    });

    // The sweeps below are started as their Temporal Schedules start them (the test server has no schedules).
    const scheduled = async (workflowType: string, workflowId: string) => {
      await gw.deps.temporal.client.workflow.start(workflowType, {
        taskQueue: gw.taskQueue,
        workflowId,
        args: [],
      });
      return workflowId;
    };

    it('replays the OAuth sweep', async () => {
      const runId = await scheduled('oauthCredentialSweep', `${workflowIds.oauthSweep()}/${server}`);
      const { history, result } = await recordFinished(gw, runId, name('oauth-sweep-one-batch'));
      expect(result).toMatchObject({ batches: 1 });
      expect(scheduledActivities(history)).toEqual(['sweepOAuthCredentials']);
    });

    it('replays the platform-fee sweep', async () => {
      const runId = await scheduled('platformFeeSweep', `platform-fee-sweep/${server}`);
      const { history, result } = await recordFinished(gw, runId, name('platform-fee-sweep-ran'));
      expect(result).toEqual({ moved: 0 });
      expect(scheduledActivities(history)).toEqual(['sweepAllPlatformFees']);
    });

    it("replays a project's reconciliation run and the sweep that runs one per project", async () => {
      const t = await gw.createTenant();
      const wallet = await newWallet(gw, t);
      await fund(gw, t, wallet, 10_000);
      const paid = await gw.request('POST', `/v1/wallets/${wallet}/execute`, {
        key: t.key,
        body: {
          amount: 10,
          currency: 'BRL',
          recipient: 'shop',
          description: 'thing',
          mandate_id: 'mdt_1',
          attempt_id: `recon-${server}`,
        },
      });
      expect(paid.body.status).toBe('completed');

      const sweepId = await scheduled(
        'reconciliationSweep',
        `${workflowIds.reconciliationSweep()}/${server}`,
      );
      const sweep = await recordFinished<{ projects: number }>(gw, sweepId, name('reconciliation-sweep-ran'));
      expect(sweep.result?.projects).toBeGreaterThan(0);
      expect(scheduledActivities(sweep.history)).toEqual(['listProjectsToReconcile']);
      expect(
        sweep.history.events?.filter((e) => e.childWorkflowExecutionCompletedEventAttributes),
      ).toHaveLength(sweep.result!.projects);

      const run = await gw.request('POST', '/v1/wallet-reconciliations', { key: t.key });
      expect([run.status, run.body.status]).toEqual([201, 'completed']);
      const { result } = await recordFinished(
        gw,
        workflowIds.reconciliation(t.projectId, run.body.id),
        name('wallet-reconciliation-completed'),
      );
      expect(result).toMatchObject({ id: run.body.id, status: 'completed' });
    });
  });

  describe('toolCallReplay', () => {
    it('replays the tool call a person approved, made once in its session', async () => {
      const t = await gw.createTenant();
      const connected = await gw.request('POST', '/v1/providers/pix-psp/connections', {
        key: t.key,
        body: { credentials: API_KEY_SANDBOX },
      });
      expect(connected.status).toBe(201);
      await gw.request('POST', '/v1/policies', {
        key: t.key,
        body: {
          name: 'charges need a person',
          type: 'approval-required',
          tools: ['pix-psp.pix_charge_create'],
          config: {},
        },
      });
      const session = await gw.request('POST', '/v1/sessions', {
        key: t.key,
        body: { servers: ['gateway', 'pix-psp'] },
      });
      const held = await gw.request('POST', `/v1/sessions/${session.body.id}/tool-calls`, {
        key: t.key,
        body: { tool: 'pix-psp.pix_charge_create', arguments: { amount_minor: '4200', expires_in_s: 600 } },
      });
      expect([held.status, held.body.reason]).toEqual([403, 'approval_required']);
      const approvalId = held.body.approval_id as string;
      const decided = await gw.operator('POST', `/v1/orgs/${t.orgId}/approvals/${approvalId}/decide`, {
        user: 'alice',
        body: { decision: 'approve' },
      });
      expect(decided.status).toBe(200);
      const workflowId = workflowIds.toolCallReplay(t.orgId, approvalId);
      await started(gw, workflowId);
      const { history, result } = await recordFinished(gw, workflowId, name('tool-call-replay-made'));
      expect(result).toMatchObject({ ok: true, error_code: null });
      expect(scheduledActivities(history)).toEqual(['replayToolCallActivity']);
    });
  });

  describe('consentLifecycle', () => {
    it('replays a consent submitted, its mandate signed, then revoked', async () => {
      const { token, mandateId } = await hostedMandate(gw, tenant);
      const revoked = await gw.request('POST', `/v1/mandates/${mandateId}/revoke`, {
        key: tenant.key,
        body: {},
      });
      expect(revoked.status).toBe(200);
      const { history, result } = await recordFinished(
        gw,
        workflowIds.consent(tokenDigest(token)),
        name('consent-lifecycle-revoked'),
      );
      expect(result).toBe('mandate_revoked');
      expect(scheduledActivities(history)).toEqual([]);
    });
  });

  describe('contactCodeDelivery and contactCodeCheck', () => {
    let live: Tenant;
    let prelude: PreludeMock;
    beforeAll(async () => {
      live = await gw.createTenant({ environment: 'live' });
      prelude = gw.mocks.prelude as PreludeMock;
    });
    let serial = 0;
    const phone = () => `+55119${String(70000000 + ++serial * 7919 + (server === 'dev' ? 1 : 0)).slice(-8)}`;
    const start = (consumerId: string, body: Record<string, unknown>, t = live) =>
      gw.request('POST', `/v1/consumers/${consumerId}/contact-verifications`, { key: t.key, body });
    const check = (consumerId: string, id: string, body: Record<string, unknown>) =>
      gw.request('POST', `/v1/consumers/${consumerId}/contact-verifications/${id}/verify`, {
        key: live.key,
        body,
      });

    it('replays a code sent by the dev sender, which the gateway checks itself', async () => {
      const { consumer } = await partnerMandate(gw, tenant);
      const email = `ana.${server}.${Date.now()}@example.com`;
      const sent = await start(consumer.id, { channel: 'email', target: email }, tenant);
      expect(sent.status).toBe(201);
      expect((gw.mocks.otp_dev as DevSenderMock).latestCode(email)).toEqual(expect.any(String));
      const { history, result } = await recordFinished(
        gw,
        workflowIds.contactCodeDelivery(sent.body.id),
        name('contact-code-delivery-sent'),
      );
      expect(result).toEqual({ providerReference: expect.anything() });
      expect(localActivities(history)).toEqual(['sendContactCode', 'completeContactVerification']);
    });

    it('replays a phone code Prelude sent and checked', async () => {
      const { consumer } = await partnerMandate(gw, live);
      const target = phone();
      const sent = await start(consumer.id, { channel: 'phone', target });
      expect([sent.status, sent.body.provider]).toEqual([201, 'prelude']);
      await recordFinished(
        gw,
        workflowIds.contactCodeDelivery(sent.body.id),
        name('contact-code-delivery-prelude'),
      );
      const verified = await check(consumer.id, sent.body.id, { code: prelude.codeFor(target)!, target });
      expect(verified.status).toBe(200);
      const { history, result } = await recordFinished(
        gw,
        workflowIds.contactCodeCheck(sent.body.id, 1),
        name('contact-code-check-approved'),
      );
      expect(result).toEqual(expect.any(String));
      expect(localActivities(history)).toEqual(['checkContactCode']);
    });

    it('replays a send Prelude refused, whose verification was discarded', async () => {
      const { consumer } = await partnerMandate(gw, live);
      prelude.blockNext('suspicious');
      const refused = await start(consumer.id, { channel: 'phone', target: phone() });
      expect([refused.status, refused.body.error.code]).toEqual([422, 'otp_sender_refused']);
      // The refused send removed its verification row; the id it sent under names the workflow.
      const { history, failure } = await recordFinished(
        gw,
        workflowIds.contactCodeDelivery(prelude.correlationIds.at(-1)!),
        name('contact-code-delivery-refused'),
      );
      expect(failure).toBeDefined();
      expect(localActivities(history)).toEqual(['sendContactCode', 'discardContactVerification']);
    });

    it('replays a check Prelude did not answer', async () => {
      const { consumer } = await partnerMandate(gw, live);
      const target = phone();
      const sent = await start(consumer.id, { channel: 'phone', target });
      prelude.faults.push(503, { code: 'internal_error', message: 'down' }, 1);
      const unanswered = await check(consumer.id, sent.body.id, { code: prelude.codeFor(target)!, target });
      expect(unanswered.body.error.code).toBe('otp_sender_unavailable');
      const { failure } = await recordFinished(
        gw,
        workflowIds.contactCodeCheck(sent.body.id, 1),
        name('contact-code-check-unavailable'),
      );
      expect(failure).toBeDefined();
    });
  });

  describe('ddaRegistration', () => {
    const subscription = (clientRequestId: string) =>
      gw.db.oneFirst(sql.type(z.object({ id: z.string() }))`
        SELECT id FROM dda_subscriptions WHERE client_request_id = ${clientRequestId}`);

    it('replays a registration the provider confirmed, and the run that ended it upstream', async () => {
      const document = newCpf();
      const consumerId = await verifiedConsumer(gw, tenant, { document, allowlist: [document] });
      const dda = gw.mocks.dda as DdaMock;
      dda.script(document, { outcome: 'hold' });
      const created = await register(gw, tenant, consumerId, { document, idempotency_key: 'reg-1' });
      expect([created.status, created.body.status]).toEqual([201, 'pending']);
      const workflowId = ddaWorkflowId(await subscription(created.body.client_request_id));
      await dda.confirm(created.body.client_request_id);
      const active = await recordFinished(gw, workflowId, name('dda-registration-active'));
      expect(active.result).toBe('active');
      expect(scheduledActivities(active.history)).toEqual([
        'registerDdaSubscription',
        'activateDdaSubscription',
      ]);

      const deleted = await remove(gw, tenant, consumerId, document);
      expect([deleted.status, deleted.body.status]).toEqual([200, 'deleted']);
      const ended = await recordFinished(gw, workflowId, name('dda-registration-deleted'));
      expect(ended.result).toBe('deleted');
      expect(scheduledActivities(ended.history)).toEqual([
        'deleteDdaSubscriptionUpstream',
        'markDdaSubscriptionDeleted',
      ]);
    });

    it('replays a registration the provider could not take, left pending for a retry', async () => {
      const document = newCpf();
      const consumerId = await verifiedConsumer(gw, tenant, { document, allowlist: [document] });
      (gw.mocks.dda as DdaMock).script(document, { outcome: 'fail', times: 3 });
      const down = await register(gw, tenant, consumerId, { document, idempotency_key: 'reg-1' });
      expect([down.status, down.body.error.code]).toEqual([502, 'dda_provider_unavailable']);
      const clientRequestId = await gw.db.oneFirst(sql.type(z.object({ crid: z.string() }))`
        SELECT client_request_id AS crid FROM dda_subscriptions WHERE consumer_id = ${consumerId}`);
      const { history, result } = await recordFinished(
        gw,
        ddaWorkflowId(await subscription(clientRequestId)),
        name('dda-registration-unavailable'),
      );
      expect(result).toBe('unregistered');
      expect(scheduledActivities(history)).toEqual(['registerDdaSubscription']);
    });

    it('replays a registration the provider refused', async () => {
      const document = newCpf();
      const consumerId = await verifiedConsumer(gw, tenant, { document, allowlist: [document] });
      (gw.mocks.dda as DdaMock).script(document, { outcome: 'refuse' });
      const refused = await register(gw, tenant, consumerId, { document, idempotency_key: 'reg-1' });
      expect([refused.status, refused.body.status]).toEqual([200, 'error']);
      const clientRequestId = await gw.db.oneFirst(sql.type(z.object({ crid: z.string() }))`
        SELECT client_request_id AS crid FROM dda_subscriptions WHERE consumer_id = ${consumerId}`);
      const { history, result } = await recordFinished(
        gw,
        ddaWorkflowId(await subscription(clientRequestId)),
        name('dda-registration-refused'),
      );
      expect(result).toBe('error');
      expect(scheduledActivities(history)).toEqual(['registerDdaSubscription', 'markDdaSubscriptionError']);
    });
  });

  describe('linkPayment and walletTopup', () => {
    it('replays a link payment the PSP confirmed paid', async () => {
      const { workflowId, txid } = await paymentLink(gw, tenant);
      expect((await (gw.mocks.pix_psp as PixPspMock).cobs.pay(txid)).webhookStatus).toBe(200);
      const { history, result } = await recordFinished(gw, workflowId, name('link-payment-succeeded'));
      expect(result).toBe('succeeded');
      expect(scheduledActivities(history)).toEqual([
        'openLinkCharge',
        'linkChargeState',
        'settleLinkPaymentActivity',
      ]);
    });

    it('replays a link payment an x402 buyer settled on the chain', async () => {
      const created = await gw.request('POST', '/v1/payment-links', {
        key: tenant.key,
        body: {
          title: 'Agent API credits',
          accepts: [
            {
              rail: 'x402',
              amount: '1.25',
              currency: 'USDC',
              pay_to: { kind: 'byo', address: privateKeyToAccount(generatePrivateKey()).address },
            },
          ],
        },
      });
      expect(created.status).toBe(201);
      const { fetch: payFetch } = payingFetch(gw.chain!.buyers[0], gw.chain!);
      expect((await payFetch(`${gw.url}/pay/${created.body.slug}/x402`)).status).toBe(200);
      const paymentId = await gw.db.oneFirst(sql.type(z.object({ id: z.string() }))`
        SELECT id FROM payment_link_payments WHERE link_id = ${created.body.id}`);
      const { history, result } = await recordFinished(
        gw,
        workflowIds.linkPayment(created.body.id, paymentId),
        name('link-payment-x402-succeeded'),
      );
      expect(result).toBe('succeeded');
      expect(scheduledActivities(history)).toEqual([
        'broadcastX402Settlement',
        'confirmX402Settlement',
        'settleLinkPaymentActivity',
      ]);
    });

    it('replays a Pix top-up the PSP confirmed paid, credited once', async () => {
      const { workflowId, txid } = await topup(gw, tenant, '2590');
      expect((await (gw.mocks.pix_psp as PixPspMock).cobs.pay(txid)).webhookStatus).toBe(200);
      const { history, result } = await recordFinished(gw, workflowId, name('wallet-topup-credited'));
      expect(result).toBe('credited');
      expect(scheduledActivities(history)).toEqual([
        'openTopupCharge',
        'topupChargeState',
        'creditPixTopupActivity',
      ]);
    });
  });

  describe('webhookDelivery', () => {
    it('replays a test fire delivered at its first attempt', async () => {
      const endpointId = await webhookEndpoint(gw, tenant, `${receiver.url}/fire-${server}`);
      const fired = await gw.request('POST', `/v1/webhook-endpoints/${endpointId}/test`, { key: tenant.key });
      expect(fired.status).toBe(202);
      const [row] = await deliveriesOnce(gw, tenant, endpointId, (rows) => rows.length > 0);
      const workflowId = workflowIds.delivery(row.chain_id);
      await started(gw, workflowId);
      const { history, result } = await recordFinished(gw, workflowId, name('webhook-delivery-test-fire'));
      expect(result).toEqual({ outcome: 'delivered', attempts: 1 });
      expect(localActivities(history)).toEqual(['attemptDelivery']);
    });

    it('replays a redelivery held while its endpoint was paused and sent once it was reactivated', async () => {
      const endpointId = await webhookEndpoint(gw, tenant, `${receiver.url}/held-${server}`);
      await emitEvent(gw, tenant, 'payment.succeeded', { n: 1 });
      const [delivered] = await deliveriesOnce(
        gw,
        tenant,
        endpointId,
        (rows) => rows[0]?.status === 'delivered',
      );
      const patch = (status: string) =>
        gw.request('PATCH', `/v1/webhook-endpoints/${endpointId}`, { key: tenant.key, body: { status } });
      await patch('paused');
      const redelivery = await gw.request(
        'POST',
        `/v1/webhook-endpoints/deliveries/${delivered.id}/redeliver`,
        {
          key: tenant.key,
        },
      );
      expect(redelivery.status).toBe(202);
      const redeliveryPath = `/v1/webhook-endpoints/${endpointId}/deliveries/${redelivery.body.redelivery_id}`;
      await waitFor(
        async () => (await gw.request('GET', redeliveryPath, { key: tenant.key })).body.waiting_for_endpoint,
      );
      await patch('active');
      const { history, result } = await recordFinished(
        gw,
        workflowIds.delivery(redelivery.body.redelivery_id),
        name('webhook-delivery-held-reactivated'),
      );
      expect(result).toEqual({ outcome: 'delivered', attempts: 1 });
      expect(localActivities(history)).toEqual(['attemptDelivery', 'attemptDelivery']);
    });
  });
});

// These paths wait out durable timers: the time-skipping server skips its clock while the test waits on
// the workflow's result. The skipped clock is shared by every workflow of a server, so they have their own.
describe('platform workflow paths that wait out their timers, on the time-skipping server', () => {
  let gw: Gateway;
  let tenant: Tenant;
  let receiver: Receiver;
  beforeAll(async () => {
    gw = await startGateway({ chain: true });
    tenant = await gw.createTenant();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.stop();
    await gw?.stop();
  });
  const name = (label: string) => `${label}.time-skipping`;
  const skipping = { skipTime: true };

  it('replays a consent token that expired unsubmitted', async () => {
    const consent = await createConsent(gw, tenant.key);
    const { history, result } = await recordFinished(
      gw,
      workflowIds.consent(tokenDigest(consent.token)),
      name('consent-lifecycle-token-expired'),
      skipping,
    );
    expect(result).toBe('token_expired');
    expect(scheduledActivities(history)).toEqual(['expireConsentToken']);
  });

  it('replays a mandate amended to an earlier expiry, then expired on the moved timer', async () => {
    const { token, mandateId } = await hostedMandate(gw, tenant, { mandate_ttl_seconds: 600 });
    const amended = await gw.request('POST', `/v1/mandates/${mandateId}/amend`, {
      key: tenant.key,
      body: { expires_at: new Date(Date.now() + 120_000).toISOString(), cap_minor: 40_000 },
    });
    expect(amended.status).toBe(200);
    const { history, result } = await recordFinished(
      gw,
      workflowIds.consent(tokenDigest(token)),
      name('consent-lifecycle-amended-expired'),
      skipping,
    );
    expect(result).toBe('mandate_expired');
    expect(scheduledActivities(history)).toEqual(['expireMandateTimer']);
  });

  it('replays a link payment whose charge lapsed unpaid', async () => {
    const { workflowId } = await paymentLink(gw, tenant);
    const { history, result } = await recordFinished(gw, workflowId, name('link-payment-expired'), skipping);
    expect(result).toBe('expired');
    expect(scheduledActivities(history)).toEqual(
      expect.arrayContaining(['openLinkCharge', 'linkChargeState', 'releaseLinkPaymentActivity']),
    );
  });

  it('replays a Pix top-up whose charge lapsed unpaid', async () => {
    const { workflowId } = await topup(gw, tenant, '700');
    const { history, result } = await recordFinished(gw, workflowId, name('wallet-topup-expired'), skipping);
    expect(result).toBe('expired');
    expect(scheduledActivities(history)).toEqual(
      expect.arrayContaining(['openTopupCharge', 'topupChargeState', 'endUnpaidTopupActivity']),
    );
  });

  it('replays a delivery chain that retried a failing receiver on its backoff and then delivered', async () => {
    let failures = 0;
    receiver.answer = (request) =>
      request.path === '/flaky' && ++failures <= 3 ? { status: 500, body: 'boom' } : { status: 200 };
    const endpointId = await webhookEndpoint(gw, tenant, `${receiver.url}/flaky`);
    await emitEvent(gw, tenant, 'payment.succeeded', { n: 1 });
    const [first] = await deliveriesOnce(gw, tenant, endpointId, (rows) => rows.length > 0);
    const workflowId = workflowIds.delivery(first.chain_id);
    await started(gw, workflowId);
    const { history, result } = await recordFinished(
      gw,
      workflowId,
      name('webhook-delivery-retried'),
      skipping,
    );
    expect(result).toEqual({ outcome: 'delivered', attempts: 4 });
    expect(localActivities(history)).toEqual(['attemptDelivery', 'attemptDelivery', 'attemptDelivery']);
  });

  it('replays a delivery chain that dead-lettered after its last attempt', async () => {
    receiver.answer = (request) => (request.path === '/down' ? { status: 503 } : { status: 200 });
    const endpointId = await webhookEndpoint(gw, tenant, `${receiver.url}/down`);
    await emitEvent(gw, tenant, 'payment.succeeded', { n: 2 });
    const [first] = await deliveriesOnce(gw, tenant, endpointId, (rows) => rows.length > 0);
    const workflowId = workflowIds.delivery(first.chain_id);
    await started(gw, workflowId);
    const { history, result } = await recordFinished(gw, workflowId, name('webhook-delivery-dead'), skipping);
    expect(result).toEqual({ outcome: 'dead', attempts: 8 });
    expect(localActivities(history)).toEqual(Array(7).fill('attemptDelivery'));
  });

  it("replays a USDC wallet's deposit watcher, ended by the wallet's close", async () => {
    const walletId = await newWallet(gw, tenant, { currency: 'USDC' });
    const address = await gw.request('GET', `/v1/wallets/${walletId}/deposit-address`, { key: tenant.key });
    expect(address.status).toBe(200);
    expect((await gw.request('POST', `/v1/wallets/${walletId}/close`, { key: tenant.key })).status).toBe(200);
    const { history, result } = await recordFinished(
      gw,
      workflowIds.depositWatch(walletId),
      name('deposit-watch-closed'),
      skipping,
    );
    expect(result).toBe('closed');
    expect(scheduledActivities(history).every((type) => type === 'scanUsdcDeposits')).toBe(true);
  });
});

/** Registered workflows with no recorded history yet: none; a new workflow lands with its recordings. */
const UNRECORDED: string[] = [];

describe('recorded histories under test/replay/platform/', () => {
  // Read when the tests run, after a recording run above has written them.
  it('cover every workflow the worker registers, the platform ones on every path above', async () => {
    const paths = [
      'worker-probe-ok',
      'approval-sweep-ran',
      'oauth-sweep-one-batch',
      'platform-fee-sweep-ran',
      'wallet-reconciliation-completed',
      'reconciliation-sweep-ran',
      'tool-call-replay-made',
      'consent-lifecycle-revoked',
      'contact-code-delivery-sent',
      'contact-code-delivery-prelude',
      'contact-code-delivery-refused',
      'contact-code-check-approved',
      'contact-code-check-unavailable',
      'dda-registration-active',
      'dda-registration-deleted',
      'dda-registration-unavailable',
      'dda-registration-refused',
      'link-payment-succeeded',
      'link-payment-x402-succeeded',
      'wallet-topup-credited',
      'webhook-delivery-test-fire',
      'webhook-delivery-held-reactivated',
      'card-mint-minted',
    ];
    const timed = [
      'consent-lifecycle-token-expired',
      'consent-lifecycle-amended-expired',
      'link-payment-expired',
      'wallet-topup-expired',
      'webhook-delivery-retried',
      'webhook-delivery-dead',
      'deposit-watch-closed',
    ];
    const platform = recordedHistories(PLATFORM_REPLAY_DIR);
    expect(platform.map((r) => r.name).sort()).toEqual(
      [
        ...paths.flatMap((p) => TEMPORAL_SERVERS.map((s) => `${p}.${s}`)),
        ...timed.map((p) => `${p}.time-skipping`),
      ].sort(),
    );
    // Every registered workflow has a recorded history somewhere under test/replay/, but for those named
    // in UNRECORDED, which are named until their recordings land (and no longer after).
    const recorded = new Set(everyRecordedHistory().map((r) => r.workflowType));
    const unrecorded = (await registeredWorkflowTypes()).filter((type) => !recorded.has(type));
    expect(unrecorded).toEqual(UNRECORDED);
  });

  it('replay on the current workflow bundle without a determinism error', async () => {
    const failures: string[] = [];
    const histories = recordedHistories(PLATFORM_REPLAY_DIR).map((r) => ({
      workflowId: r.name,
      history: r.history,
    }));
    expect(histories.length).toBeGreaterThan(0);
    for await (const result of Worker.runReplayHistories(replayBundle(), histories)) {
      if (result.error) failures.push(`${result.workflowId}: ${result.error.name}: ${result.error.message}`);
    }
    expect(failures).toEqual([]);
  });
});
