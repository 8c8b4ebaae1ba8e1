// The money workflows replay their histories on the current bundle: every path of the one attempt engine
// (moneyAttempt, for wallet executes, paid tool calls and consumer spends) and approvalHold is driven
// through HTTP on both Temporal servers, its history replayed at once, and (RECORD_HISTORIES=1,
// `npm run record-histories`) saved under test/replay/; the saved histories are replayed too, among them
// those of spendAttempt, paidToolCall and consumerSpendAttempt recorded before the engine, so a change that breaks running
// workflows fails here.
import { Worker } from '@temporalio/worker';
import type { PaymentsMock } from '../providers/mocks/payments';
import type { PixPspMock } from '../providers/mocks/pix-psp';
import { workflowIds } from '../contracts/workflow-ids';
import type { AttemptResult } from '../contracts/attempt';
import { pixSpend, readyConsumer, TED_DESTINATION, tedSpend } from './support/consumer-spend';
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';
import {
  localActivities,
  recordedHistories,
  replayBundle,
  replayFinished,
  scheduledActivities,
} from './support/histories';
import { fund, newWallet } from './support/money';
import { MCP_UPSTREAM_AUTH, type McpUpstreamMock } from '../providers/mocks/mcp-upstream';

let n = 0;
const attemptId = (label: string) => `rpl-${label}-${Date.now()}-${++n}`;

function walletExecute(gw: Gateway, t: Tenant, wallet: string, attempt: string, amount = 12.34) {
  return gw.request('POST', `/v1/wallets/${wallet}/execute`, {
    key: t.key,
    body: {
      amount,
      currency: 'BRL',
      recipient: 'vendor-9',
      description: 'Server rack',
      mandate_id: 'mdt_1',
      attempt_id: attempt,
    },
  });
}

const decide = (gw: Gateway, t: Tenant, approvalId: string, decision: 'approve' | 'deny') =>
  gw.operator('POST', `/v1/orgs/${t.orgId}/approvals/${approvalId}/decide`, {
    user: 'alice',
    body: { decision },
  });

/** A tenant whose wallet executes above 50.00 BRL wait for a person. */
async function heldWallet(gw: Gateway, ttlSeconds?: number) {
  const t = await gw.createTenant();
  if (ttlSeconds)
    await gw.request('PATCH', `/v1/projects/${t.projectId}/settings`, {
      key: t.key,
      body: { approval_ttl_seconds: ttlSeconds },
    });
  await gw.request('POST', '/v1/policies', {
    key: t.key,
    body: { name: 'big spends', type: 'approval-required', config: { above_minor: '5000', currency: 'BRL' } },
  });
  const wallet = await newWallet(gw, t);
  await fund(gw, t, wallet, 100_000);
  return { t, wallet };
}

describe.each(TEMPORAL_SERVERS)('money workflow histories on the %s server', (server) => {
  let gw: Gateway;
  let tenant: Tenant;
  beforeAll(async () => {
    gw = await startGateway({ temporal: server });
    tenant = await gw.createTenant();
  });
  afterAll(async () => {
    await gw?.stop();
  });
  const name = (label: string) => `${label}.${server}`;

  describe('moneyAttempt: wallet execute', () => {
    it('replays a wallet execute that completed', async () => {
      const wallet = await newWallet(gw, tenant);
      await fund(gw, tenant, wallet, 10_000);
      const attempt = attemptId('spend');
      const result = await walletExecute(gw, tenant, wallet, attempt);
      expect([result.status, result.body.status]).toEqual([200, 'completed']);
      const { history } = await replayFinished(
        gw,
        workflowIds.spend(tenant.orgId, attempt),
        name('attempt-wallet-completed'),
      );
      // The dispatch runs inside the workflow task: nothing is scheduled on the server.
      expect(scheduledActivities(history)).toEqual([]);
      // Authorized, sent and settled, with the result stored, in one step.
      expect(localActivities(history)).toEqual(['decideAttempt']);
    });

    it('replays a wallet execute the provider refused, whose hold was released', async () => {
      const wallet = await newWallet(gw, tenant);
      await fund(gw, tenant, wallet, 10_000);
      const attempt = attemptId('refused');
      (gw.mocks.payments as PaymentsMock).script(attempt, { outcome: 'refuse', code: 'card_declined' });
      const result = await walletExecute(gw, tenant, wallet, attempt);
      expect(result.body).toMatchObject({
        status: 'failed',
        failure: { code: 'card_declined' },
        wallet: { releaseId: expect.any(String) },
      });
      await replayFinished(gw, workflowIds.spend(tenant.orgId, attempt), name('attempt-wallet-refused'));
    });
  });

  describe('approvalHold', () => {
    it('replays a held wallet execute, its approval, and the spend the approval replayed once', async () => {
      const { t, wallet } = await heldWallet(gw);
      const attempt = attemptId('held');
      const held = await walletExecute(gw, t, wallet, attempt, 120);
      expect([held.status, held.body.status]).toEqual([403, 'requires-approval']);
      const approvalId = held.body.approval_id as string;
      await replayFinished(gw, workflowIds.spend(t.orgId, attempt), name('attempt-wallet-held'));
      expect((await decide(gw, t, approvalId, 'approve')).status).toBe(200);
      await replayFinished(gw, workflowIds.approval(approvalId), name('approval-hold-attempt-approved'));
      const replayed = await replayFinished(
        gw,
        workflowIds.spendReplay(t.orgId, attempt, approvalId),
        name('attempt-wallet-approved-replay'),
      );
      expect(scheduledActivities(replayed.history)).toEqual([]);
      expect(localActivities(replayed.history)).toEqual(['decideAttempt']);
      const approval = await gw.request('GET', `/v1/approvals/${approvalId}`, { key: t.key });
      expect(approval.body).toMatchObject({ status: 'approved', execution_result: { status: 'completed' } });
    });

    it('replays an approval the person denied, which moved no money', async () => {
      const { t, wallet } = await heldWallet(gw);
      const held = await walletExecute(gw, t, wallet, attemptId('denied'), 120);
      const approvalId = held.body.approval_id as string;
      expect((await decide(gw, t, approvalId, 'deny')).status).toBe(200);
      const { history } = await replayFinished(
        gw,
        workflowIds.approval(approvalId),
        name('approval-hold-denied'),
      );
      expect(scheduledActivities(history)).toEqual(['decideApprovalActivity']);
      expect(
        (await gw.request('GET', `/v1/wallets/${wallet}`, { key: t.key })).body.balances[0],
      ).toMatchObject({ available_minor: '100000' });
    });
  });

  describe('moneyAttempt: paid tool call', () => {
    let caller: Tenant;
    let owner: Tenant;
    let toolServer: { id: string; slug: string };
    let session: string;
    beforeAll(async () => {
      owner = await gw.createTenant();
      caller = await gw.createTenant();
      const created = await gw.request('POST', '/v1/mcp-servers', {
        key: owner.key,
        body: {
          slug: `rpl-${server}`,
          name: 'Replayed charges',
          upstream_url: (gw.mocks.mcp_upstream as McpUpstreamMock).url,
          upstream_auth: MCP_UPSTREAM_AUTH,
          platform_fee_bps: 1500,
          tools: [
            { tool_name: 'quote', price: '0.25' },
            { tool_name: 'fail', price: '0.50' },
            { tool_name: 'vanish', price: '0.50' },
          ],
        },
      });
      if (created.status !== 201) throw new Error(created.text);
      toolServer = created.body;
      session = (
        await gw.request('POST', '/v1/sessions', { key: caller.key, body: { servers: [toolServer.slug] } })
      ).body.id;
    });
    const paidCall = async (t: Tenant, inSession: string, tool: string, args: Record<string, unknown>) =>
      gw.request('POST', `/v1/sessions/${inSession}/tool-calls`, {
        key: t.key,
        body: { tool: `${toolServer.slug}.${tool}`, arguments: args },
      });
    const fundedWallet = async (t: Tenant) => {
      const wallet = await newWallet(gw, t);
      await fund(gw, t, wallet, 10_000);
      return wallet;
    };

    it('replays a paid call the upstream answered, debited with the split', async () => {
      const wallet = await fundedWallet(caller);
      const attempt = attemptId('charge');
      const r = await paidCall(caller, session, 'quote', {
        from: 'SP',
        to: 'RJ',
        gateway_payment: { wallet_id: wallet, attempt_id: attempt },
      });
      expect([r.status, r.body.status]).toEqual([200, 'success']);
      const { history } = await replayFinished(
        gw,
        `tool-charge/${caller.orgId}/${attempt}`,
        name('attempt-tool-charge-completed'),
      );
      // Authorized, sent once and settled with the result stored in one local activity.
      expect(scheduledActivities(history)).toEqual([]);
      expect(localActivities(history)).toEqual(['decideOnceAttempt']);
    });

    it('replays a paid call the upstream failed, whose hold was released', async () => {
      const wallet = await fundedWallet(caller);
      const attempt = attemptId('charge-fail');
      const r = await paidCall(caller, session, 'fail', {
        gateway_payment: { wallet_id: wallet, attempt_id: attempt },
      });
      expect(r.status).toBe(502);
      expect(r.body.error).toMatchObject({
        code: 'provider_error',
        details: { reason: 'upstream_tool_error' },
      });
      await replayFinished(gw, `tool-charge/${caller.orgId}/${attempt}`, name('attempt-tool-charge-failed'));
    });

    it('replays a paid call whose answer never came, resolved by the tenant', async () => {
      const wallet = await fundedWallet(caller);
      const attempt = attemptId('charge-lost');
      const r = await paidCall(caller, session, 'vanish', {
        gateway_payment: { wallet_id: wallet, attempt_id: attempt },
      });
      expect(r.body.error.code).toBe('attempt_in_progress');
      const resolved = await gw.request(
        'POST',
        `/v1/mcp-servers/${toolServer.id}/charges/${attempt}/resolve`,
        {
          key: owner.key,
          body: { outcome: 'succeeded' },
        },
      );
      expect(resolved.status).toBe(200);
      const { history } = await replayFinished(
        gw,
        `tool-charge/${caller.orgId}/${attempt}`,
        name('attempt-tool-charge-resolved'),
      );
      // The answer was lost in the step that sent it: the lookup turned the charge uncertain.
      expect(localActivities(history)).toEqual(['decideOnceAttempt', 'settleAttempt']);
      expect(scheduledActivities(history)).toEqual(['lookupAttempt']);
    });

    it('replays a paid call a rule held, its approval, and the call the approval replayed once', async () => {
      const t = await gw.createTenant();
      const wallet = await fundedWallet(t);
      await gw.request('POST', '/v1/policies', {
        key: t.key,
        body: {
          name: 'ask first',
          type: 'approval-required',
          tools: [`${toolServer.slug}.quote`],
          config: {},
        },
      });
      const own = (
        await gw.request('POST', '/v1/sessions', { key: t.key, body: { servers: [toolServer.slug] } })
      ).body.id;
      const attempt = attemptId('charge-held');
      const held = await paidCall(t, own, 'quote', {
        from: 'A',
        to: 'B',
        gateway_payment: { wallet_id: wallet, attempt_id: attempt },
      });
      expect([held.status, held.body.reason]).toEqual([403, 'approval_required']);
      const approvalId = held.body.approval_id as string;
      await replayFinished(gw, `tool-charge/${t.orgId}/${attempt}`, name('attempt-tool-charge-held'));
      expect((await decide(gw, t, approvalId, 'approve')).status).toBe(200);
      await replayFinished(
        gw,
        workflowIds.approval(approvalId),
        name('approval-hold-attempt-tool-charge-approved'),
      );
      const replayed = await replayFinished(
        gw,
        `tool-charge/${t.orgId}/${attempt}/${approvalId}`,
        name('attempt-tool-charge-approved-replay'),
      );
      expect(localActivities(replayed.history)).toEqual(['decideOnceAttempt']);
    });
  });

  describe('moneyAttempt: consumer spend', () => {
    // The engine's result says which answer the family stored, and carries no HTTP status or body: the
    // caller's reply is read from the attempt's row.
    const execute = (body: unknown) =>
      gw.request('POST', '/v1/consumer-payments/execute', { key: tenant.key, body });
    const finished = (attempt: string, label: string) =>
      replayFinished<AttemptResult>(gw, workflowIds.consumerSpend(tenant.orgId, attempt), name(label));

    it('replays a Pix spend on a signed mandate through its receipt', async () => {
      const c = await readyConsumer(gw, tenant, { fundMinor: 10_000 });
      const body = pixSpend(c);
      const reply = await execute(body);
      expect([reply.status, reply.body.status]).toEqual([200, 'completed']);
      const { history, result } = await finished(body.attempt_id, 'attempt-consumer-pix-completed');
      expect(result).toMatchObject({ family: 'consumer_spend', status: 'completed' });
      expect(result.answer).toEqual({ stored: 'completed' });
      expect(scheduledActivities(history)).toEqual([]);
      expect(localActivities(history)).toEqual(['decideAttempt']);
    });

    it('replays a TED spend to the signed withdrawal allowlist', async () => {
      const c = await readyConsumer(gw, tenant, {
        fundMinor: 20_000,
        intent: { withdrawal_allowlist: [TED_DESTINATION] },
      });
      const body = tedSpend(c, { amount_minor: 5_000 });
      const reply = await execute(body);
      expect([reply.status, reply.body.status, reply.body.payment.rail]).toEqual([200, 'completed', 'ted']);
      const { result } = await finished(body.attempt_id, 'attempt-consumer-ted-completed');
      expect(result.answer).toEqual({ stored: 'completed' });
    });

    it('replays a Pix spend the PSP refused, whose hold was released', async () => {
      const c = await readyConsumer(gw, tenant, { fundMinor: 5_000 });
      const body = pixSpend(c, { amount_minor: 1_200 });
      (gw.mocks.pix_psp as unknown as PixPspMock).script(body.attempt_id, {
        outcome: 'refuse',
        reason: 'AM04',
      });
      const reply = await execute(body);
      expect([reply.status, reply.body.error.code]).toEqual([422, 'psp_refused']);
      const { history, result } = await finished(body.attempt_id, 'attempt-consumer-psp-refused');
      expect(result.status).toBe('failed');
      expect(result.answer).toEqual({ stored: 'failed' });
      expect(scheduledActivities(history)).toEqual([]);
      expect(localActivities(history)).toEqual(['decideAttempt']);
    });

    it('replays a spend refused before dispatch for insufficient funds', async () => {
      const c = await readyConsumer(gw, tenant, { fundMinor: 1_000 });
      const body = pixSpend(c, { amount_minor: 2_000 });
      const reply = await execute(body);
      expect([reply.status, reply.body.error.code]).toEqual([422, 'insufficient_funds']);
      const { history, result } = await finished(body.attempt_id, 'attempt-consumer-insufficient-funds');
      expect(result.answer).toEqual({ stored: 'refused' });
      expect(scheduledActivities(history)).toEqual([]);
      expect(localActivities(history)).toEqual(['decideAttempt']);
    });

    it('replays a held consumer spend, its approval, and the spend the approval replayed once', async () => {
      const c = await readyConsumer(gw, tenant, { fundMinor: 50_000 });
      const body = pixSpend(c, { amount_minor: 12_000 });
      const reply = await execute(body);
      expect([reply.status, reply.body.error.code]).toEqual([403, 'approval_required']);
      const held = await finished(body.attempt_id, 'attempt-consumer-held');
      expect(held.result).toMatchObject({ status: 'requires_approval' });
      expect(held.result.answer).toEqual({ stored: 'requires_approval' });
      const approvalId = held.result.approval!.id;
      expect((await decide(gw, tenant, approvalId, 'approve')).status).toBe(200);
      await replayFinished(
        gw,
        workflowIds.approval(approvalId),
        name('approval-hold-attempt-consumer-approved'),
      );
      const replayed = await replayFinished<AttemptResult>(
        gw,
        workflowIds.consumerSpendReplay(tenant.orgId, body.attempt_id, approvalId),
        name('attempt-consumer-approved-replay'),
      );
      expect(replayed.result).toMatchObject({ status: 'completed', answer: { stored: 'completed' } });
      expect(scheduledActivities(replayed.history)).toEqual([]);
      expect(localActivities(replayed.history)).toEqual(['decideAttempt']);
      const again = await execute(body);
      expect(again.body).toMatchObject({ status: 'completed', idempotent_replay: true });
      // The approval records the answer the replayed spend stored: its claimant's, not flagged a replay.
      const approval = await gw.request('GET', `/v1/approvals/${approvalId}`, { key: tenant.key });
      expect(approval.body.execution_result).toEqual({ ...again.body, idempotent_replay: false });
    });
  });
});

// Expiry needs the skipped clock, which every workflow of a test server shares: its own gateway.
describe('an approval that expires, on the time-skipping server', () => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(async () => {
    await gw?.stop();
  });

  it('replays an approval whose durable timer expired it before any decision', async () => {
    const { t, wallet } = await heldWallet(gw, 60);
    const held = await walletExecute(gw, t, wallet, attemptId('expired'), 120);
    const approvalId = held.body.approval_id as string;
    // Waiting on the test server's own client skips its clock to the expiry.
    const { history } = await replayFinished(
      gw,
      workflowIds.approval(approvalId),
      'approval-hold-expired.time-skipping',
      { skipTime: true },
    );
    expect(scheduledActivities(history)).toEqual(['expireApprovalActivity']);
    expect((await gw.request('GET', `/v1/approvals/${approvalId}`, { key: t.key })).body.status).toBe(
      'expired',
    );
  });
});

describe('recorded histories under test/replay/', () => {
  // Read when the tests run, after a recording run above has written them.
  it('cover every path of every money workflow, from both servers', () => {
    const paths = [
      'attempt-wallet-completed',
      'attempt-wallet-refused',
      'attempt-wallet-held',
      'attempt-wallet-approved-replay',
      'approval-hold-attempt-approved',
      'attempt-tool-charge-completed',
      'attempt-tool-charge-failed',
      'attempt-tool-charge-resolved',
      'attempt-tool-charge-held',
      'attempt-tool-charge-approved-replay',
      'approval-hold-attempt-tool-charge-approved',
      'attempt-consumer-pix-completed',
      'attempt-consumer-ted-completed',
      'attempt-consumer-psp-refused',
      'attempt-consumer-insufficient-funds',
      'attempt-consumer-held',
      'attempt-consumer-approved-replay',
      'approval-hold-attempt-consumer-approved',
      // Recorded before an idempotent send's authorization, send and settlement were one step.
      'attempt-wallet-completed-before-fold',
      'attempt-wallet-refused-before-fold',
      'attempt-wallet-held-before-fold',
      'attempt-wallet-approved-replay-before-fold',
      'attempt-wallet-provider-status-before-fold',
      'attempt-wallet-provider-uncertain-before-fold',
      'attempt-consumer-pix-completed-before-fold',
      'attempt-consumer-ted-completed-before-fold',
      'attempt-consumer-psp-refused-before-fold',
      'attempt-consumer-insufficient-funds-before-fold',
      'attempt-consumer-held-before-fold',
      'attempt-consumer-approved-replay-before-fold',
      'attempt-consumer-consent-pull-before-fold',
      'attempt-consumer-consent-pull-refused-before-fold',
      'attempt-consumer-lost-resent-before-fold',
      'attempt-consumer-settled-later-before-fold',
      'attempt-tool-charge-completed-before-fold',
      'attempt-tool-charge-failed-before-fold',
      'attempt-tool-charge-resolved-before-fold',
      'attempt-tool-charge-approved-replay-before-fold',
      // Recorded before a paid call's authorization, send once and settlement were one step.
      'attempt-tool-charge-completed-before-once',
      'attempt-tool-charge-failed-before-once',
      'attempt-tool-charge-resolved-before-once',
      'attempt-tool-charge-held-before-once',
      'attempt-tool-charge-approved-replay-before-once',
      // Recorded before the step that settles or releases the money stored the result as well.
      'attempt-wallet-completed-stored-apart',
      'attempt-wallet-refused-stored-apart',
      'attempt-wallet-approved-replay-stored-apart',
      'attempt-wallet-provider-status-stored-apart',
      'attempt-wallet-provider-uncertain-stored-apart',
      'attempt-tool-charge-completed-stored-apart',
      'attempt-tool-charge-failed-stored-apart',
      'attempt-tool-charge-resolved-stored-apart',
      'attempt-tool-charge-approved-replay-stored-apart',
      // Recorded before the one engine: the old workflow types stay registered so these keep replaying.
      'spend-attempt-completed',
      'spend-attempt-refused',
      'spend-attempt-held',
      'spend-attempt-approved-replay',
      'approval-hold-approved',
      'approval-hold-denied',
      'approval-hold-consumer-approved',
      'consumer-spend-pix-completed',
      'consumer-spend-ted-completed',
      'consumer-spend-psp-refused',
      'consumer-spend-insufficient-funds',
      'consumer-spend-held',
      'consumer-spend-approved-replay',
      'paid-tool-call-completed',
      'paid-tool-call-failed',
      'paid-tool-call-resolved',
      'paid-tool-call-held',
      'paid-tool-call-approved-replay',
      'approval-hold-tool-charge-approved',
    ];
    const recorded = recordedHistories();
    const expected = [
      ...paths.flatMap((p) => TEMPORAL_SERVERS.map((s) => `${p}.${s}`)),
      'approval-hold-expired.time-skipping',
    ];
    expect(recorded.map((r) => r.name)).toEqual(expect.arrayContaining(expected));
    expect(new Set(recorded.map((r) => r.workflowType))).toEqual(
      new Set(['moneyAttempt', 'spendAttempt', 'consumerSpendAttempt', 'approvalHold', 'paidToolCall']),
    );
  });

  it('replay on the current workflow bundle without a determinism error', async () => {
    const failures: string[] = [];
    const histories = recordedHistories().map((r) => ({ workflowId: r.name, history: r.history }));
    expect(histories.length).toBeGreaterThan(0);
    for await (const result of Worker.runReplayHistories(replayBundle(), histories)) {
      if (result.error) failures.push(`${result.workflowId}: ${result.error.name}: ${result.error.message}`);
    }
    expect(failures).toEqual([]);
  });
});
