// KYC onboarding through HTTP, on both Temporal servers, against the mock KYC provider (a real HTTP
// server sending signed webhooks): an approval opening one account, one `pix-partner` funding source, the
// consumer's verified document and a Pix key, with later reads creating nothing; the document check at
// the provider's hosted page; a rejection with its reason; a lost webhook recovered by the workflow's own
// look; a duplicated and a replayed webhook applied once; a worker restarted mid-onboarding resuming
// without a second account; and the refusals of the start. Finished histories are replayed at once and,
// with RECORD_HISTORIES=1, saved under test/replay/kyc/.
import { sql } from 'slonik';
import { z } from 'zod';
import { SEARCH_ATTRIBUTES } from '../contracts/search-attributes';
import { kycOnboardingStateQuery, type KycOnboardingResult } from '../contracts/kyc-messages';
import { workflowIds } from '../contracts/workflow-ids';
import { withCheckDigits } from '../domain/consumers/document-number';
import { KYC_SIGNATURE_HEADER, KYC_TIMESTAMP_HEADER, signKycWebhook } from '../domain/kyc/webhook-signature';
import type { KycMock, KycScript } from '../providers/mocks/kyc';
import { createConsumer } from './support/consents';
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';
import { Worker } from '@temporalio/worker';
import path from 'node:path';
import { recordedHistories, REPLAY_DIR, replayBundle, replayFinished } from './support/histories';

/** The onboarding's recordings, in their own folder beside the other workflows'. */
const KYC_REPLAY_DIR = path.join(REPLAY_DIR, 'kyc');

let serial = 0;
/** A fresh CPF with matching check digits, so each onboarding has its own document at the provider. */
const newCpf = () =>
  withCheckDigits(String(100_000_000 + ((Date.now() * 7 + ++serial * 7919) % 899_999_999)));

describe.each(TEMPORAL_SERVERS)('KYC onboarding on the %s server', (server) => {
  let gw: Gateway;
  let acme: Tenant;
  let kyc: KycMock;
  beforeAll(async () => {
    // The test server never moves a stopped worker's sticky tasks back to the shared queue; a real server does.
    if (server === 'time-skipping') process.env.TEMPORAL_MAX_CACHED_WORKFLOWS = '0';
    gw = await startGateway({ temporal: server });
    delete process.env.TEMPORAL_MAX_CACHED_WORKFLOWS;
    acme = await gw.createTenant({ name: 'Acme' });
    kyc = gw.mocks.kyc as KycMock;
  });
  afterAll(async () => {
    await gw?.stop();
  });
  // Unless a test says otherwise, only the provider's webhooks move an onboarding along.
  beforeEach(() => {
    gw.config.kyc.pollInitialSeconds = 3_600;
    gw.config.kyc.pollMaxSeconds = 3_600;
    gw.config.kyc.pixRetrySeconds = 3_600;
  });

  const read = (proposalId: string, key = acme.key) =>
    gw.request('GET', `/v1/kyc/onboardings/${proposalId}`, { key });
  const handleOf = (proposalId: string) =>
    gw.deps.temporal.client.workflow.getHandle(workflowIds.kycOnboarding(proposalId));
  const stateOf = (proposalId: string) => handleOf(proposalId).query(kycOnboardingStateQuery);
  const fundingSources = (consumerId: string) =>
    gw.db.any(sql.type(
      z.object({ id: z.string(), rail: z.string(), holder_document: z.string().nullable() }),
    )`
      SELECT id, rail, holder_document FROM consumer_funding_sources WHERE consumer_id = ${consumerId}`);
  const eventsOf = (proposalId: string) =>
    gw.db.anyFirst(sql.type(z.object({ type: z.string() }))`
      SELECT type FROM events WHERE data->>'proposal_id' = ${proposalId} ORDER BY id`);

  /** Waits (without asserting how long) until the onboarding's read satisfies `done`. */
  async function until(proposalId: string, done: (body: Record<string, unknown>) => boolean) {
    for (let i = 0; i < 600; i++) {
      const res = await read(proposalId);
      if (done(res.body)) return res.body;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(
      `onboarding ${proposalId} never reached the awaited state: ${JSON.stringify((await read(proposalId)).body)}`,
    );
  }

  /** Waits until the workflow has looked at the provider at least `count` times. */
  async function looked(proposalId: string, count = 1) {
    for (let i = 0; i < 600; i++) {
      if (((await stateOf(proposalId).catch(() => null))?.checks ?? 0) >= count) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`onboarding ${proposalId} never looked at the provider`);
  }

  async function start(script: KycScript, options: { document?: string; name?: string } = {}) {
    const document = options.document ?? newCpf();
    kyc.script(document, script);
    const consumer = await createConsumer(gw, acme.key);
    const res = await gw.request('POST', '/v1/kyc/onboardings', {
      key: acme.key,
      body: {
        consumer_id: consumer.id,
        document_number: document,
        name: options.name ?? 'Ana Souza',
        birth_date: '1990-04-12',
        email: 'ana@example.com',
        phone: '+5511987654321',
      },
    });
    expect(res.status).toBe(201);
    return { proposalId: res.body.id as string, consumerId: consumer.id, document, started: res.body };
  }

  /** Waits for the onboarding's workflow to finish; its history is replayed and, when recording, saved. */
  const finished = (proposalId: string, label: string) =>
    replayFinished<KycOnboardingResult>(gw, workflowIds.kycOnboarding(proposalId), `${label}.${server}`, {
      dir: KYC_REPLAY_DIR,
    });

  it('approves by webhook: one account, one pix-partner funding source, the verified document and a Pix key; later reads create nothing', async () => {
    const { proposalId, consumerId, document, started } = await start({ outcome: 'hold' });
    expect(started).toMatchObject({
      id: proposalId,
      consumer_id: consumerId,
      status: 'pending',
      account: null,
      funding_source_id: null,
      pix_key: null,
      pix_key_registration_error: null,
      document_verified: false,
    });
    const description = await handleOf(proposalId).describe();
    expect(description.typedSearchAttributes.get(SEARCH_ATTRIBUTES.KycProposalId)).toBe(proposalId);
    expect(description.typedSearchAttributes.get(SEARCH_ATTRIBUTES.ConsumerId)).toBe(consumerId);

    await looked(proposalId);
    await kyc.advance(proposalId, 'APPROVED');
    const { result } = await finished(proposalId, 'approved');
    expect(result).toEqual({ status: 'approved', reason: null });

    const approved = await read(proposalId);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({
      status: 'approved',
      account: expect.stringMatching(/^0001\/\d{8}$/),
      funding_source_id: expect.stringMatching(/^cfs_/),
      pix_key: expect.any(String),
      pix_key_type: 'EVP',
      pix_key_registration_error: null,
      rejection_reason: null,
      document_verified: true,
    });
    expect(await fundingSources(consumerId)).toEqual([
      { id: approved.body.funding_source_id, rail: 'pix-partner', holder_document: document },
    ]);
    const consumer = await gw.request('GET', `/v1/consumers/${consumerId}`, { key: acme.key });
    expect(consumer.body).toMatchObject({ status: 'verified', document, document_source: 'kyc_proposal' });
    expect(kyc.accounts().filter((a) => a.documentNumber === document)).toHaveLength(1);
    expect(await eventsOf(proposalId)).toEqual([
      'kyc.onboarding.started',
      'kyc.onboarding.approved',
      'kyc.pix_key.registered',
    ]);

    // Later reads, the deprecated poll included, and a repeated start ask nothing and create nothing.
    const calls = (['create', 'proposal', 'open', 'pix'] as const).map((e) => kyc.calls(e));
    const poll = await gw.request('GET', `/v1/kyc/onboard/${proposalId}/status?document_number=${document}`, {
      key: acme.key,
    });
    expect(poll.status).toBe(200);
    expect(poll.headers.get('deprecation')).toMatch(/^@[0-9]+$/);
    expect(poll.body).toEqual({
      status: 'approved',
      account: approved.body.account,
      funding_source_id: approved.body.funding_source_id,
      hosted_url: null,
      pix_key: approved.body.pix_key,
      pix_key_type: 'EVP',
    });
    expect((await read(proposalId)).body).toEqual(approved.body);
    const again = await gw.request('POST', '/v1/kyc/onboardings', {
      key: acme.key,
      body: { consumer_id: consumerId, document_number: document, name: 'Ana Souza' },
    });
    expect([again.status, again.body.id]).toEqual([200, proposalId]);
    expect((['create', 'proposal', 'open', 'pix'] as const).map((e) => kyc.calls(e))).toEqual(calls);
    expect(await fundingSources(consumerId)).toHaveLength(1);
  });

  it("surfaces the provider's hosted_url while documentscopy_pending, then approves once the check is done", async () => {
    const { proposalId } = await start({ outcome: 'documentscopy' });
    const waiting = await until(proposalId, (body) => body.status === 'documentscopy_pending');
    expect(waiting.hosted_url).toBe(`${kyc.url}/documentscopy/${encodeURIComponent(proposalId)}`);
    const page = await fetch(String(waiting.hosted_url));
    expect(page.headers.get('content-type')).toContain('text/html');
    await page.arrayBuffer();
    // The holder sends the document on the provider's page: processing, then approved.
    const sent = await fetch(String(waiting.hosted_url), { method: 'POST' });
    expect(sent.status).toBe(200);
    await sent.arrayBuffer();
    const { result } = await finished(proposalId, 'documentscopy');
    expect(result.status).toBe('approved');
    const approved = (await read(proposalId)).body;
    expect(approved).toMatchObject({ status: 'approved', hosted_url: null, document_verified: true });
    expect(await eventsOf(proposalId)).toEqual([
      'kyc.onboarding.started',
      'kyc.onboarding.documentscopy_pending',
      'kyc.onboarding.pending',
      'kyc.onboarding.approved',
      'kyc.pix_key.registered',
    ]);
  });

  it("ends a rejection with the provider's reason, opening nothing", async () => {
    const opened = kyc.calls('open');
    const { proposalId, consumerId } = await start({ outcome: 'reject', reason: 'document_data_mismatch' });
    const { result } = await finished(proposalId, 'rejected');
    expect(result).toEqual({ status: 'rejected', reason: 'document_data_mismatch' });
    expect((await read(proposalId)).body).toMatchObject({
      status: 'rejected',
      rejection_reason: 'document_data_mismatch',
      account: null,
      funding_source_id: null,
      document_verified: false,
    });
    expect(kyc.calls('open')).toBe(opened);
    expect(await fundingSources(consumerId)).toEqual([]);
    const consumer = await gw.request('GET', `/v1/consumers/${consumerId}`, { key: acme.key });
    expect(consumer.body.status).toBe('unverified');
    expect(await eventsOf(proposalId)).toEqual(['kyc.onboarding.started', 'kyc.onboarding.rejected']);
  });

  it('recovers a lost webhook by looking at the provider itself after its quiet wait', async () => {
    gw.config.kyc.pollInitialSeconds = 1;
    const { proposalId } = await start({ outcome: 'hold' });
    await looked(proposalId);
    await kyc.advance(proposalId, 'APPROVED', { webhook: 'lose' });
    expect(kyc.webhooks().filter((w) => w.proposalId === proposalId)).toEqual([
      expect.objectContaining({ status: 'APPROVED', lost: true, answered: null }),
    ]);
    const { result } = await finished(proposalId, 'lost-webhook');
    expect(result.status).toBe('approved');
    const state = await stateOf(proposalId);
    expect(state.notices).toBe(0);
    expect(state.checks).toBeGreaterThanOrEqual(2);
    expect((await read(proposalId)).body).toMatchObject({ status: 'approved', pix_key: expect.any(String) });
  });

  it('applies a duplicated webhook once, and acknowledges a replay or refuses a forgery without applying it', async () => {
    const { proposalId, consumerId } = await start({ outcome: 'hold' });
    await looked(proposalId);
    await kyc.advance(proposalId, 'APPROVED', { webhook: 'duplicate' });
    const [webhook] = kyc.webhooks().filter((w) => w.proposalId === proposalId);
    expect(webhook.answered).toBe(200);
    const { result } = await finished(proposalId, 'duplicate-webhook');
    expect(result.status).toBe('approved');
    expect((await stateOf(proposalId)).notices).toBe(1);
    const receipts = await gw.db.oneFirst(sql.type(z.object({ count: z.number() }))`
      SELECT count(*)::int AS count FROM kyc_webhook_receipts WHERE proposal_id = ${proposalId}`);
    expect(receipts).toBe(1);
    expect(await fundingSources(consumerId)).toHaveLength(1);

    // The same signed delivery again (a replay inside the tolerance) is acknowledged, not applied.
    expect(await kyc.replay(webhook.eventId)).toBe(200);
    const body = JSON.stringify({ event_id: 'kev_forged', proposal_id: proposalId, status: 'APPROVED' });
    const now = Math.floor(Date.now() / 1000);
    const post = (headers: Record<string, string>) =>
      gw.request('POST', '/webhooks/kyc/proposals', {
        raw: body,
        headers: { 'content-type': 'application/json', ...headers },
      });
    const late = await post({
      [KYC_SIGNATURE_HEADER]: signKycWebhook(kyc.webhookSecret, now, body),
      [KYC_TIMESTAMP_HEADER]: String(now),
    });
    // A new event for a proposal already final is acknowledged and changes nothing.
    expect(late.body).toEqual({ received: true, applied: false });
    const forged = await post({
      [KYC_SIGNATURE_HEADER]: signKycWebhook('not-the-secret', now, body),
      [KYC_TIMESTAMP_HEADER]: String(now),
    });
    expect([forged.status, forged.body.error.code]).toEqual([401, 'invalid_signature']);
    const stale = await post({
      [KYC_SIGNATURE_HEADER]: signKycWebhook(kyc.webhookSecret, now - 3_600, body),
      [KYC_TIMESTAMP_HEADER]: String(now - 3_600),
    });
    expect([stale.status, stale.body.error.details]).toEqual([401, { reason: 'timestamp_out_of_tolerance' }]);
    const after = await gw.db.oneFirst(sql.type(z.object({ count: z.number() }))`
      SELECT count(*)::int AS count FROM kyc_webhook_receipts WHERE proposal_id = ${proposalId}`);
    expect(after).toBe(1);
  });

  it('resumes after a worker restart mid-onboarding without a second account, source or key', async () => {
    gw.config.kyc.pixRetrySeconds = 1;
    const { proposalId, consumerId, document } = await start({ outcome: 'hold' });
    await looked(proposalId);
    kyc.failNext('pix', 2);
    const opened = kyc.calls('open');
    await kyc.advance(proposalId, 'APPROVED');
    // Approved with its account, the Pix key failing: the account is usable and the error shows.
    const failing = await until(proposalId, (body) => typeof body.pix_key_registration_error === 'string');
    expect(failing).toMatchObject({
      status: 'approved',
      funding_source_id: expect.any(String),
      pix_key: null,
    });
    const poll = await gw.request('GET', `/v1/kyc/onboard/${proposalId}/status?document_number=${document}`, {
      key: acme.key,
    });
    expect(poll.body.pix_key_registration_error).toEqual(expect.any(String));

    await gw.stopWorker();
    await gw.startWorker();
    const { result } = await finished(proposalId, 'pix-key-retried');
    expect(result.status).toBe('approved');
    expect(kyc.calls('open') - opened).toBe(1);
    expect(kyc.accounts().filter((a) => a.documentNumber === document)).toHaveLength(1);
    expect(await fundingSources(consumerId)).toHaveLength(1);
    expect(kyc.pixKeys().filter((k) => k.idempotencyKey === `kyc-pix/${proposalId}`)).toHaveLength(1);
    const done = (await read(proposalId)).body;
    expect(done).toMatchObject({ pix_key: expect.any(String), pix_key_registration_error: null });
    expect(await eventsOf(proposalId)).toEqual(
      expect.arrayContaining(['kyc.pix_key.registration_failed', 'kyc.pix_key.registered']),
    );
  });

  it('refuses a bad document, an unknown consumer, a second document while one stands, a refused person and a foreign read', async () => {
    const consumer = await createConsumer(gw, acme.key);
    const body = { consumer_id: consumer.id, document_number: '529.982.247-24', name: 'Ana Souza' };
    const badDigits = await gw.request('POST', '/v1/kyc/onboardings', { key: acme.key, body });
    expect([badDigits.status, badDigits.body.error.code]).toEqual([400, 'invalid_body']);
    const unknown = await gw.request('POST', '/v1/kyc/onboardings', {
      key: acme.key,
      body: { ...body, consumer_id: 'cns_0000000000000000', document_number: newCpf() },
    });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'not_found']);

    const refusedDocument = newCpf();
    kyc.script(refusedDocument, { outcome: 'refuse', reason: 'person_under_age' });
    const created = kyc.proposals().length;
    const refused = await gw.request('POST', '/v1/kyc/onboardings', {
      key: acme.key,
      body: { ...body, document_number: refusedDocument },
    });
    expect([refused.status, refused.body.error.code, refused.body.error.details]).toEqual([
      422,
      'kyc_proposal_refused',
      { provider_code: 'person_under_age' },
    ]);
    expect(kyc.proposals()).toHaveLength(created);

    const standing = await start({ outcome: 'hold' });
    const second = await gw.request('POST', '/v1/kyc/onboardings', {
      key: acme.key,
      body: { consumer_id: standing.consumerId, document_number: newCpf(), name: 'Ana Souza' },
    });
    expect([second.status, second.body.error.code, second.body.error.details]).toEqual([
      409,
      'onboarding_exists',
      { proposal_id: standing.proposalId },
    ]);
    const globex = await gw.createTenant({ name: 'Globex' });
    const foreign = await read(standing.proposalId, globex.key);
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'not_found']);
    await handleOf(standing.proposalId).terminate('test over');
  });
});

describe('recorded kycOnboarding histories under test/replay/kyc/', () => {
  const paths = [
    'approved',
    'documentscopy',
    'rejected',
    'lost-webhook',
    'duplicate-webhook',
    'pix-key-retried',
  ];
  const recorded = () => recordedHistories(KYC_REPLAY_DIR).filter((r) => r.workflowType === 'kycOnboarding');

  it('cover every path, from both servers', () => {
    expect(recorded().map((r) => r.name)).toEqual(
      expect.arrayContaining(paths.flatMap((p) => TEMPORAL_SERVERS.map((s) => `${p}.${s}`))),
    );
  });

  it('replay on the current workflow bundle without a determinism error', async () => {
    const failures: string[] = [];
    const histories = recorded().map((r) => ({ workflowId: r.name, history: r.history }));
    for await (const result of Worker.runReplayHistories(replayBundle(), histories)) {
      if (result.error) failures.push(`${result.workflowId}: ${result.error.name}: ${result.error.message}`);
    }
    expect(failures).toEqual([]);
  });
});
