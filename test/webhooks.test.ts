import { readFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { sql } from 'slonik';
import { Webhook } from 'standardwebhooks';
import { z } from 'zod';
import { recordEvent } from '../domain/events/record';
import { emitEvent } from './support/events';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { startReceiver, type Receiver } from './support/receiver';

let gw: Gateway;
let receiver: Receiver;
beforeAll(async () => {
  gw = await startGateway();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.stop();
  await gw?.stop();
});
beforeEach(() => {
  receiver.requests.length = 0;
  receiver.answer = () => ({ status: 200, body: 'ok' });
});

async function createEndpoint(tenant: Tenant, body: Record<string, unknown> = {}) {
  const created = await gw.request('POST', '/v1/webhook-endpoints', {
    key: tenant.key,
    body: { name: 'orders', event: 'payment.succeeded', webhook_url: `${receiver.url}/hooks`, ...body },
  });
  expect(created.status).toBe(201);
  return created.body;
}

/** Polls a read until `done` holds (deliveries are written by the worker, after the HTTP call returns). */
async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`condition not met in time; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const at = (path: string) => receiver.requests.filter((request) => request.path === path);
/** Chains whose recorded histories the determinism check replays at the end. */
const recordedChains: string[] = [];
/** The chain's outcome; awaiting it lets the test server skip time through the backoff timers. */
const chainResult = async (chainId: string) => {
  recordedChains.push(chainId);
  const handle = gw.env.client.workflow.getHandle(`delivery/${chainId}`);
  // The dispatcher commits the delivery row before it starts the workflow: wait for the start.
  await eventually(
    () =>
      handle.describe().then(
        () => true,
        () => false,
      ),
    Boolean,
  );
  return handle.result();
};
const firstDelivery = async (tenant: Tenant, triggerId: string) =>
  (
    await eventually(
      () => deliveriesOf(tenant, triggerId),
      (rows) => rows.length > 0,
    )
  ).at(-1);
const getEndpointOf = async (tenant: Tenant, id: string) =>
  (await gw.request('GET', `/v1/webhook-endpoints/${id}`, { key: tenant.key })).body;

const deliveriesOf = async (tenant: Tenant, triggerId: string) =>
  (await gw.request('GET', `/v1/webhook-endpoints/${triggerId}/deliveries?limit=200`, { key: tenant.key }))
    .body.deliveries as any[];

describe('delivery', () => {
  it('delivers a committed event signed so a Standard Webhooks library verifies it', async () => {
    const tenant = await gw.createTenant();
    const endpoint = await createEndpoint(tenant);
    expect(endpoint.signing_secret).toMatch(/^whsec_/);
    const event = await emitEvent(gw, tenant, 'payment.succeeded', {
      amount_minor: 1250n,
      attempt_id: 'att_1',
    });

    const [request] = await receiver.waitFor(1);
    const payload = new Webhook(endpoint.signing_secret).verify(request.body, {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    });
    expect(payload).toEqual({
      id: event.id,
      type: 'payment.succeeded',
      created_at: event.created_at,
      project_id: tenant.projectId,
      environment: 'test',
      data: { amount_minor: '1250', attempt_id: 'att_1' },
    });
    expect(request.headers['webhook-id']).toBe(event.id);

    const [delivery] = await eventually(
      () => deliveriesOf(tenant, endpoint.id),
      (rows) => rows[0]?.status === 'delivered',
    );
    expect(delivery).toMatchObject({
      trigger_id: endpoint.id,
      event_id: event.id,
      attempt: 1,
      status: 'delivered',
      origin: 'dispatch',
    });
    expect(delivery.response).toMatchObject({ status: 200, body: 'ok', body_truncated: false });
    expect(delivery.request.headers['webhook-signature']).toBe(request.headers['webhook-signature']);
    const after = await gw.request('GET', `/v1/webhook-endpoints/${endpoint.id}`, { key: tenant.key });
    expect(after.body).toMatchObject({ total_runs: 1, signing_enabled: true, status: 'active' });
    expect(after.body.last_run_at).toEqual(delivery.attempted_at);
    expect(after.body.signing_secret).toBeUndefined();
    // The dispatcher made the attempt itself: a chain settled the first time needs no workflow.
    await expect(
      gw.env.client.workflow.getHandle(`delivery/${delivery.chain_id}`).describe(),
    ).rejects.toThrow(/not found/i);
  });
});

describe('delivery in bursts', () => {
  it('counts every delivered attempt of a burst once in total_runs, with last_run_at the latest attempt', async () => {
    const tenant = await gw.createTenant();
    const endpoint = await createEndpoint(tenant, { webhook_url: `${receiver.url}/burst` });
    const scope = { orgId: tenant.orgId, projectId: tenant.projectId, environment: 'test' as const };
    // One transaction of 30 events: they fan out together and their first attempts are recorded in batches.
    await gw.db.transaction(async (tx) => {
      for (let i = 0; i < 30; i++) await recordEvent(tx, scope, 'payment.succeeded', { i });
    });
    await receiver.waitFor(30);
    const rows = await eventually(
      () => deliveriesOf(tenant, endpoint.id),
      (list) => list.length === 30 && list.every((row) => row.status === 'delivered'),
    );
    expect(new Set(at('/burst').map((request) => request.headers['webhook-id'])).size).toBe(30);
    const latest = rows
      .map((row) => row.attempted_at)
      .sort()
      .at(-1);
    expect(await getEndpointOf(tenant, endpoint.id)).toMatchObject({ total_runs: 30, last_run_at: latest });
  });
});

describe('retries, dead letters and pausing', () => {
  it('retries a failing receiver on the schedule and delivers once it recovers (time-skipped)', async () => {
    const tenant = await gw.createTenant();
    receiver.answer = (request) =>
      request.path === '/flaky' && at('/flaky').length <= 3 ? { status: 500, body: 'boom' } : { status: 200 };
    const endpoint = await createEndpoint(tenant, { webhook_url: `${receiver.url}/flaky` });
    const event = await emitEvent(gw, tenant, 'payment.succeeded', { n: 1 });
    const first = await firstDelivery(tenant, endpoint.id);

    await expect(chainResult(first.chain_id)).resolves.toEqual({ outcome: 'delivered', attempts: 4 });
    // The failed first attempt handed the chain to its workflow at attempt 2, after the first backoff.
    const [started] = (await gw.env.client.workflow.getHandle(`delivery/${first.chain_id}`).fetchHistory())
      .events!;
    const [input] = started.workflowExecutionStartedEventAttributes!.input!.payloads!.map((p) =>
      JSON.parse(Buffer.from(p.data!).toString()),
    );
    expect(input).toMatchObject({ attempt: 2, firstWaitMs: 5_000 });

    const rows = (await deliveriesOf(tenant, endpoint.id)).reverse();
    expect(rows.map((row) => [row.attempt, row.status, row.error])).toEqual([
      [1, 'failed', 'http_500'],
      [2, 'failed', 'http_500'],
      [3, 'failed', 'http_500'],
      [4, 'delivered', null],
    ]);
    expect(rows[0].response).toMatchObject({ status: 500, body: 'boom' });
    // Each retry waited per the Svix-like schedule, 5 s, then 5 min, then 30 min after the failure: the
    // chain's durable timers carry those exact waits, and each row is scheduled no sooner after the
    // failed attempt before it (an exact bound, whatever the machine's pace; no margin of time).
    const schedule = [5_000, 300_000, 1_800_000];
    const history = await gw.env.client.workflow.getHandle(`delivery/${first.chain_id}`).fetchHistory();
    const timers = history
      .events!.map((e) => e.timerStartedEventAttributes?.startToFireTimeout)
      .filter((timeout) => timeout != null)
      .map((timeout) => Number(timeout.seconds ?? 0) * 1_000 + Math.round((timeout.nanos ?? 0) / 1e6));
    expect(timers).toEqual(schedule);
    rows
      .slice(1)
      .forEach((row, i) =>
        expect(Date.parse(row.scheduled_at)).toBeGreaterThanOrEqual(
          Date.parse(rows[i].attempted_at) + schedule[i],
        ),
      );
    expect(new Set(at('/flaky').map((request) => request.headers['webhook-id']))).toEqual(
      new Set([event.id]),
    );
    expect(await getEndpointOf(tenant, endpoint.id)).toMatchObject({ total_runs: 1, status: 'active' });
  });

  it('dead-letters a delivery after the last attempt and auto-pauses the endpoint to error after N consecutive dead ones', async () => {
    const tenant = await gw.createTenant();
    const settings = await gw.request('PATCH', `/v1/projects/${tenant.projectId}/settings`, {
      key: tenant.key,
      body: { webhook_auto_pause_after: 2 },
    });
    expect(settings.status).toBe(200);
    receiver.answer = (request) => (request.path === '/down' ? { status: 503 } : { status: 200 });
    const endpoint = await createEndpoint(tenant, {
      webhook_url: `${receiver.url}/down`,
      event: 'ledger.entry_posted',
    });

    await emitEvent(gw, tenant, 'ledger.entry_posted', { n: 1 });
    const first = await firstDelivery(tenant, endpoint.id);
    await expect(chainResult(first.chain_id)).resolves.toEqual({ outcome: 'dead', attempts: 8 });
    const afterOne = await getEndpointOf(tenant, endpoint.id);
    expect(afterOne).toMatchObject({ status: 'active', total_runs: 0, last_run_at: null });

    await emitEvent(gw, tenant, 'ledger.entry_posted', { n: 2 });
    const second = await eventually(
      () => deliveriesOf(tenant, endpoint.id),
      (rows) => rows[0].chain_id !== first.chain_id,
    );
    await expect(chainResult(second[0].chain_id)).resolves.toEqual({ outcome: 'dead', attempts: 8 });

    const rows = await deliveriesOf(tenant, endpoint.id);
    expect(rows).toHaveLength(16);
    expect(rows.filter((row) => row.status === 'dead').map((row) => row.attempt)).toEqual([8, 8]);
    expect(await getEndpointOf(tenant, endpoint.id)).toMatchObject({
      status: 'error',
      status_reason: 'consecutive_dead',
      total_runs: 0,
    });

    // While in error, new events are not sent; a PATCH reactivates.
    const patched = await gw.request('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, {
      key: tenant.key,
      body: { status: 'active' },
    });
    expect(patched.body).toMatchObject({ status: 'active', status_reason: null });
  });

  it('pauses the endpoint when the receiver answers 410 Gone, and never follows a redirect', async () => {
    const tenant = await gw.createTenant();
    receiver.answer = (request) =>
      request.path === '/gone'
        ? { status: 410 }
        : request.path === '/moved'
          ? { status: 302, headers: { location: `${receiver.url}/target` } }
          : { status: 200 };
    const gone = await createEndpoint(tenant, {
      webhook_url: `${receiver.url}/gone`,
      event: 'approval.requested',
    });
    const moved = await createEndpoint(tenant, {
      webhook_url: `${receiver.url}/moved`,
      event: 'approval.requested',
    });
    await emitEvent(gw, tenant, 'approval.requested', { approval_id: 'apv_1' });

    const [goneRow] = await eventually(
      () => deliveriesOf(tenant, gone.id),
      (rows) => rows.some((row) => row.status !== 'pending'),
    );
    expect(goneRow).toBeDefined();
    const goneAttempt = (await deliveriesOf(tenant, gone.id)).find((row) => row.attempt === 1);
    expect(goneAttempt).toMatchObject({ status: 'failed', error: 'gone', response: { status: 410 } });
    expect(await getEndpointOf(tenant, gone.id)).toMatchObject({ status: 'paused', status_reason: 'gone' });

    const movedRows = await eventually(
      () => deliveriesOf(tenant, moved.id),
      (rows) => rows.some((row) => row.attempt === 1 && row.status !== 'pending'),
    );
    expect(movedRows.find((row) => row.attempt === 1)).toMatchObject({
      status: 'failed',
      error: 'redirect_not_followed',
      response: { status: 302 },
    });
    expect(at('/target')).toHaveLength(0);
  });
});

describe('redelivery, replay and retry-pending', () => {
  it('queues a redelivery to a paused endpoint and sends it when the endpoint is reactivated', async () => {
    const tenant = await gw.createTenant();
    const endpoint = await createEndpoint(tenant, { webhook_url: `${receiver.url}/redeliver` });
    const event = await emitEvent(gw, tenant, 'payment.succeeded', { n: 1 });
    const [delivered] = await eventually(
      () => deliveriesOf(tenant, endpoint.id),
      (rows) => rows[0]?.status === 'delivered',
    );

    await gw.request('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, {
      key: tenant.key,
      body: { status: 'paused' },
    });
    const redelivery = await gw.request(
      'POST',
      `/v1/webhook-endpoints/deliveries/${delivered.id}/redeliver`,
      { key: tenant.key },
    );
    expect(redelivery.status).toBe(202);
    expect(redelivery.body).toEqual({
      redelivery_id: expect.stringMatching(/^\d+$/),
      trigger_id: endpoint.id,
      event_id: event.id,
      trigger_status: 'paused',
    });
    const waiting = await eventually(
      () =>
        gw.request(
          'GET',
          `/v1/webhook-endpoints/${endpoint.id}/deliveries/${redelivery.body.redelivery_id}`,
          { key: tenant.key },
        ),
      (r) => r.body.waiting_for_endpoint === true,
    );
    expect(waiting.body).toMatchObject({
      status: 'pending',
      origin: 'redeliver',
      redelivery_of: delivered.id,
      attempt: 1,
    });
    expect(at('/redeliver')).toHaveLength(1);

    await gw.request('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, {
      key: tenant.key,
      body: { status: 'active' },
    });
    await eventually(
      async () => at('/redeliver').length,
      (n) => n === 2,
    );
    expect(at('/redeliver')[1].headers['webhook-id']).toBe(event.id);
    const sent = await eventually(
      () =>
        gw.request(
          'GET',
          `/v1/webhook-endpoints/${endpoint.id}/deliveries/${redelivery.body.redelivery_id}`,
          { key: tenant.key },
        ),
      (r) => r.body.status === 'delivered',
    );
    expect(sent.body.waiting_for_endpoint).toBe(false);
    expect(await getEndpointOf(tenant, endpoint.id)).toMatchObject({ total_runs: 2 });
    await expect(chainResult(redelivery.body.redelivery_id)).resolves.toEqual({
      outcome: 'delivered',
      attempts: 1,
    });
  });

  it('replays a stored event to a subscriber without minting a new event, and refuses the wrong targets', async () => {
    const tenant = await gw.createTenant();
    const event = await emitEvent(gw, tenant, 'mandate.revoked', { mandate_id: 'mdt_1' });
    await eventually(
      () => gw.request('GET', `/v1/events/${event.id}`, { key: tenant.key }),
      (r) => r.status === 200,
    );
    const endpoint = await createEndpoint(tenant, {
      webhook_url: `${receiver.url}/replay`,
      event: 'mandate.revoked',
    });
    const other = await createEndpoint(tenant, {
      webhook_url: `${receiver.url}/replay-other`,
      event: 'mandate.signed',
    });
    const paused = await createEndpoint(tenant, {
      webhook_url: `${receiver.url}/replay-paused`,
      event: 'mandate.revoked',
    });
    await gw.request('PATCH', `/v1/webhook-endpoints/${paused.id}`, {
      key: tenant.key,
      body: { status: 'paused' },
    });

    const replay = await gw.request('POST', `/v1/events/${event.id}/replay?trigger_id=${endpoint.id}`, {
      key: tenant.key,
    });
    expect(replay.status).toBe(202);
    expect(replay.body).toEqual({ event_id: event.id, dispatched: 1, trigger_id: endpoint.id });
    const [request] = await eventually(
      async () => at('/replay'),
      (list) => list.length === 1,
    );
    expect(JSON.parse(request.body).id).toBe(event.id);
    const events = await gw.request('GET', '/v1/events', { key: tenant.key });
    expect(events.body.events.map((e: { id: string }) => e.id)).toEqual([event.id]);
    const [row] = await deliveriesOf(tenant, endpoint.id);
    expect(row.origin).toBe('replay');

    const mismatch = await gw.request('POST', `/v1/events/${event.id}/replay?trigger_id=${other.id}`, {
      key: tenant.key,
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error).toMatchObject({
      code: 'trigger_event_mismatch',
      details: { trigger_event: 'mandate.signed', event_type: 'mandate.revoked' },
    });
    const inactive = await gw.request('POST', `/v1/events/${event.id}/replay?trigger_id=${paused.id}`, {
      key: tenant.key,
    });
    expect(inactive.status).toBe(409);
    expect(inactive.body.error).toMatchObject({ code: 'trigger_not_active', details: { status: 'paused' } });
    const noTrigger = await gw.request(
      'POST',
      `/v1/events/${event.id}/replay?trigger_id=trg_AAAAAAAAAAAAAAAA`,
      { key: tenant.key },
    );
    expect([noTrigger.status, noTrigger.body.error.code]).toEqual([404, 'trigger_not_found']);
    const noEvent = await gw.request(
      'POST',
      `/v1/events/evt_01aaaaaaaaaaaaaaaaaaaaaaaa/replay?trigger_id=${endpoint.id}`,
      { key: tenant.key },
    );
    expect([noEvent.status, noEvent.body.error.code]).toEqual([404, 'not_found']);
    expect(at('/replay-other')).toHaveLength(0);
    expect(at('/replay-paused')).toHaveLength(0);
  });

  it("retry-pending attempts the project's pending deliveries now and reports what became of them", async () => {
    const tenant = await gw.createTenant();
    let recovered = false;
    receiver.answer = (request) => {
      if (request.path === '/rp-ok' && recovered) return { status: 204 };
      if (request.path.startsWith('/rp-')) return { status: 503, headers: { 'retry-after': '3600' } };
      return { status: 200 };
    };
    const ok = await createEndpoint(tenant, {
      webhook_url: `${receiver.url}/rp-ok`,
      event: 'payment.failed',
    });
    const failing = await createEndpoint(tenant, {
      webhook_url: `${receiver.url}/rp-failing`,
      event: 'payment.failed',
    });
    const paused = await createEndpoint(tenant, {
      webhook_url: `${receiver.url}/rp-paused`,
      event: 'payment.failed',
    });
    await emitEvent(gw, tenant, 'payment.failed', { attempt_id: 'att_9' });
    for (const id of [ok.id, failing.id, paused.id]) {
      const rows = await eventually(
        () => deliveriesOf(tenant, id),
        (list) => list.length === 2,
      );
      // Retry-After asked for an hour, more than the scheduled 5 s, so the second attempt waits an hour.
      expect(Date.parse(rows[0].scheduled_at) - Date.parse(rows[1].attempted_at)).toBeGreaterThan(3_590_000);
    }
    await gw.request('PATCH', `/v1/webhook-endpoints/${paused.id}`, {
      key: tenant.key,
      body: { status: 'paused' },
    });
    recovered = true;

    const drained = await gw.request('POST', '/v1/webhook-endpoints/retry-pending', { key: tenant.key });
    expect(drained.status).toBe(200);
    expect(drained.body).toEqual({ scanned: 3, redispatched: 2, delivered: 1, failed: 1, dead: 0 });
    expect((await deliveriesOf(tenant, ok.id))[0]).toMatchObject({
      attempt: 2,
      status: 'delivered',
      response: { status: 204 },
    });
    expect((await deliveriesOf(tenant, failing.id)).map((row) => row.status)).toEqual([
      'pending',
      'failed',
      'failed',
    ]);
    expect((await deliveriesOf(tenant, paused.id))[0]).toMatchObject({ attempt: 2, status: 'pending' });
    const okChain = (await deliveriesOf(tenant, ok.id))[0].chain_id;
    await expect(chainResult(okChain)).resolves.toEqual({ outcome: 'delivered', attempts: 2 });
  });
});

describe('endpoints', () => {
  it('shows the signing secret once, stores it encrypted, and test-fires only active endpoints', async () => {
    const tenant = await gw.createTenant();
    const endpoint = await createEndpoint(tenant, { webhook_url: `${receiver.url}/test-fire` });
    const stored = await gw.db.oneFirst(
      sql.type(
        z.object({ sealed: z.string() }),
      )`SELECT sealed FROM webhook_signing_secrets WHERE trigger_id = ${endpoint.id}`,
    );
    expect(stored).not.toContain(endpoint.signing_secret.slice('whsec_'.length));
    const listed = await gw.request('GET', '/v1/webhook-endpoints', { key: tenant.key });
    expect(JSON.stringify(listed.body)).not.toContain(endpoint.signing_secret);

    const fired = await gw.request('POST', `/v1/webhook-endpoints/${endpoint.id}/test`, { key: tenant.key });
    expect(fired.status).toBe(202);
    const [request] = await eventually(
      async () => at('/test-fire'),
      (list) => list.length === 1,
    );
    expect(JSON.parse(request.body)).toMatchObject({
      id: fired.body.event_id,
      type: 'webhook_endpoint.test',
      data: { trigger_id: endpoint.id, subscribed_event: 'payment.succeeded' },
    });
    new Webhook(endpoint.signing_secret).verify(request.body, request.headers as Record<string, string>);

    await gw.request('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, {
      key: tenant.key,
      body: { status: 'paused' },
    });
    const refused = await gw.request('POST', `/v1/webhook-endpoints/${endpoint.id}/test`, {
      key: tenant.key,
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'trigger_not_active', details: { status: 'paused' } });
  });

  it('refuses http, loopback and private webhook URLs in live mode and allows loopback in test', async () => {
    const live = await gw.createTenant({ environment: 'live' });
    const refused: Array<[string, string]> = [
      ['http://hooks.example.com/x', 'https_required'],
      ['https://127.0.0.1/x', 'private_address'],
      ['https://10.1.2.3/x', 'private_address'],
      ['https://192.168.1.10/x', 'private_address'],
      ['https://169.254.169.254/latest/meta-data', 'private_address'],
      ['https://[::1]/x', 'private_address'],
      ['https://[::ffff:127.0.0.1]/x', 'private_address'],
      ['https://localhost:8443/x', 'private_address'],
      ['https://intranet/x', 'private_address'],
      ['https://user:pass@hooks.example.com/x', 'credentials_in_url'],
    ];
    for (const [url, reason] of refused) {
      const r = await gw.request('POST', '/v1/webhook-endpoints', {
        key: live.key,
        body: { name: 'n', event: 'payment.succeeded', webhook_url: url },
      });
      expect([url, r.status, r.body.error?.code, r.body.error?.details?.reason]).toEqual([
        url,
        400,
        'invalid_webhook_url',
        reason,
      ]);
    }
    const ok = await createEndpoint(live, { webhook_url: 'https://hooks.example.com/x' });
    const patch = await gw.request('PATCH', `/v1/webhook-endpoints/${ok.id}`, {
      key: live.key,
      body: { webhook_url: 'https://10.0.0.5/x' },
    });
    expect(patch.status).toBe(400);
    expect((await getEndpointOf(live, ok.id)).webhook_url).toBe('https://hooks.example.com/x');
    const list = await gw.request('GET', '/v1/webhook-endpoints', { key: live.key });
    expect(list.body.triggers).toHaveLength(1);

    const test = await gw.createTenant();
    await createEndpoint(test, { webhook_url: 'http://127.0.0.1:9/x' });
  });

  it('lists endpoints newest first with filters and a before cursor', async () => {
    const tenant = await gw.createTenant();
    const a = await createEndpoint(tenant, { name: 'a', event: 'payment.succeeded' });
    const b = await createEndpoint(tenant, { name: 'b', event: 'payment.failed', server_id: 'pix-psp' });
    const c = await createEndpoint(tenant, { name: 'c', event: 'payment.failed' });
    await gw.request('PATCH', `/v1/webhook-endpoints/${c.id}`, {
      key: tenant.key,
      body: { status: 'paused', name: 'c2' },
    });

    const page1 = await gw.request('GET', '/v1/webhook-endpoints?limit=2', { key: tenant.key });
    expect(page1.body.triggers.map((t: { id: string }) => t.id)).toEqual([c.id, b.id]);
    expect(page1.body.next_before).toBe(b.id);
    const page2 = await gw.request('GET', `/v1/webhook-endpoints?limit=2&before=${page1.body.next_before}`, {
      key: tenant.key,
    });
    expect(page2.body).toEqual({ triggers: [expect.objectContaining({ id: a.id })], next_before: null });
    const ids = async (query: string) =>
      (await gw.request('GET', `/v1/webhook-endpoints?${query}`, { key: tenant.key })).body.triggers.map(
        (t: { id: string }) => t.id,
      );
    expect(await ids('status=paused')).toEqual([c.id]);
    expect(await ids('event=payment.failed')).toEqual([c.id, b.id]);
    expect(await ids('server_id=pix-psp')).toEqual([b.id]);
    expect((await gw.request('GET', '/v1/webhook-endpoints?status=gone', { key: tenant.key })).status).toBe(
      400,
    );
    expect((await getEndpointOf(tenant, c.id)).name).toBe('c2');

    const badEvent = await gw.request('POST', '/v1/webhook-endpoints', {
      key: tenant.key,
      body: { name: 'x', event: 'payment.succeded', webhook_url: receiver.url },
    });
    expect([badEvent.status, badEvent.body.error.code]).toEqual([400, 'invalid_body']);
    const badServer = await gw.request('POST', '/v1/webhook-endpoints', {
      key: tenant.key,
      body: { name: 'x', event: 'payment.failed', webhook_url: receiver.url, server_id: 'Not A Server!' },
    });
    expect([badServer.status, badServer.body.error.code]).toEqual([400, 'unknown_server']);
    // A well-formed slug the catalog does not hold is just as unknown: it would never receive anything.
    const noSuchServer = await gw.request('POST', '/v1/webhook-endpoints', {
      key: tenant.key,
      body: { name: 'x', event: 'payment.failed', webhook_url: receiver.url, server_id: 'no-such-server' },
    });
    expect([noSuchServer.status, noSuchServer.body.error.code, noSuchServer.body.error.details]).toEqual([
      400,
      'unknown_server',
      { server_id: 'no-such-server' },
    ]);
    const badStatus = await gw.request('PATCH', `/v1/webhook-endpoints/${a.id}`, {
      key: tenant.key,
      body: { status: 'error' },
    });
    expect(badStatus.status).toBe(400);
  });

  it("sends an endpoint narrowed to a server only that server's events", async () => {
    const tenant = await gw.createTenant();
    const narrowed = await createEndpoint(tenant, {
      webhook_url: `${receiver.url}/narrow`,
      event: 'tool_call.succeeded',
      server_id: 'pix-psp',
    });
    const broad = await createEndpoint(tenant, {
      webhook_url: `${receiver.url}/broad`,
      event: 'tool_call.succeeded',
    });
    await emitEvent(gw, tenant, 'tool_call.succeeded', { server_id: 'other', tool_name: 'x' });
    await emitEvent(gw, tenant, 'tool_call.succeeded', { server_id: 'pix-psp', tool_name: 'y' });
    await eventually(
      async () => at('/broad').length,
      (n) => n === 2,
    );
    await eventually(
      async () => at('/narrow').length,
      (n) => n === 1,
    );
    expect(JSON.parse(at('/narrow')[0].body).data.server_id).toBe('pix-psp');
    expect(narrowed.server_id).toBe('pix-psp');
    expect(broad.server_id).toBeNull();
  });

  it('applies the delivery listing rules: limit clamped to 1..200, unparsable limit 50, delivery ids of 1 to 19 digits', async () => {
    const tenant = await gw.createTenant();
    const endpoint = await createEndpoint(tenant, {
      webhook_url: `${receiver.url}/rules`,
      event: 'wallet.created',
    });
    for (let i = 0; i < 3; i++) await emitEvent(gw, tenant, 'wallet.created', { i });
    await eventually(
      () => deliveriesOf(tenant, endpoint.id),
      (rows) => rows.length === 3,
    );
    const count = async (limit: string) =>
      (
        await gw.request('GET', `/v1/webhook-endpoints/${endpoint.id}/deliveries?limit=${limit}`, {
          key: tenant.key,
        })
      ).body.deliveries.length;
    expect(await count('0')).toBe(1);
    expect(await count('-7')).toBe(1);
    expect(await count('2')).toBe(2);
    expect(await count('abc')).toBe(3);
    expect(await count('9999')).toBe(3);
    for (const bad of ['abc', '0', '-1', '12345678901234567890', '1.5']) {
      const r = await gw.request('GET', `/v1/webhook-endpoints/${endpoint.id}/deliveries/${bad}`, {
        key: tenant.key,
      });
      expect([bad, r.status, r.body.error.code]).toEqual([bad, 400, 'invalid_delivery_id']);
      const redeliver = await gw.request('POST', `/v1/webhook-endpoints/deliveries/${bad}/redeliver`, {
        key: tenant.key,
      });
      expect([bad, redeliver.status, redeliver.body.error.code]).toEqual([bad, 400, 'invalid_delivery_id']);
    }
    const huge = await gw.request(
      'GET',
      `/v1/webhook-endpoints/${endpoint.id}/deliveries/9999999999999999999`,
      { key: tenant.key },
    );
    expect([huge.status, huge.body.error.code]).toEqual([404, 'not_found']);
  });

  it('deletes an endpoint with its secret, and answers 503 deleting nothing when the secret cannot be purged', async () => {
    const tenant = await gw.createTenant();
    const endpoint = await createEndpoint(tenant);
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const blocker = gw.db.transaction(async (tx) => {
      await tx.query(
        sql.unsafe`SELECT 1 FROM webhook_signing_secrets WHERE trigger_id = ${endpoint.id} FOR UPDATE`,
      );
      locked();
      await held;
    });
    await isLocked;
    const blocked = await gw.request('DELETE', `/v1/webhook-endpoints/${endpoint.id}`, { key: tenant.key });
    release();
    await blocker;
    expect(blocked.status).toBe(503);
    expect(blocked.body.error.code).toBe('vault_unavailable');
    expect(
      (await gw.request('GET', `/v1/webhook-endpoints/${endpoint.id}`, { key: tenant.key })).body
        .signing_enabled,
    ).toBe(true);

    const deleted = await gw.request('DELETE', `/v1/webhook-endpoints/${endpoint.id}`, { key: tenant.key });
    expect(deleted.status).toBe(204);
    expect(
      (await gw.request('GET', `/v1/webhook-endpoints/${endpoint.id}`, { key: tenant.key })).status,
    ).toBe(404);
    expect(
      await gw.db.exists(sql.unsafe`SELECT 1 FROM webhook_signing_secrets WHERE trigger_id = ${endpoint.id}`),
    ).toBe(false);
  });

  it('keeps every endpoint, delivery and event of one tenant invisible to another', async () => {
    const owner = await gw.createTenant();
    const stranger = await gw.createTenant({ name: 'Other' });
    const endpoint = await createEndpoint(owner, { webhook_url: `${receiver.url}/isolated` });
    const event = await emitEvent(gw, owner, 'payment.succeeded', { n: 1 });
    const [delivery] = await eventually(
      () => deliveriesOf(owner, endpoint.id),
      (rows) => rows[0]?.status === 'delivered',
    );
    const strangerEndpoint = await createEndpoint(stranger, { webhook_url: `${receiver.url}/stranger` });

    const calls: Array<[string, string]> = [
      ['GET', `/v1/webhook-endpoints/${endpoint.id}`],
      ['PATCH', `/v1/webhook-endpoints/${endpoint.id}`],
      ['DELETE', `/v1/webhook-endpoints/${endpoint.id}`],
      ['POST', `/v1/webhook-endpoints/${endpoint.id}/test`],
      ['GET', `/v1/webhook-endpoints/${endpoint.id}/deliveries`],
      ['GET', `/v1/webhook-endpoints/${endpoint.id}/deliveries/${delivery.id}`],
      ['GET', `/v1/webhook-endpoints/${strangerEndpoint.id}/deliveries/${delivery.id}`],
      ['POST', `/v1/webhook-endpoints/deliveries/${delivery.id}/redeliver`],
      ['GET', `/v1/events/${event.id}`],
      ['POST', `/v1/events/${event.id}/replay?trigger_id=${strangerEndpoint.id}`],
    ];
    for (const [method, path] of calls) {
      const r = await gw.request(method, path, {
        key: stranger.key,
        ...(method === 'PATCH' ? { body: { name: 'stolen' } } : {}),
      });
      expect([method, path, r.status, r.body.error?.code]).toEqual([method, path, 404, 'not_found']);
    }
    const replayForeignTrigger = await gw.request(
      'POST',
      `/v1/events/${event.id}/replay?trigger_id=${strangerEndpoint.id}`,
      { key: owner.key },
    );
    expect([replayForeignTrigger.status, replayForeignTrigger.body.error.code]).toEqual([
      404,
      'trigger_not_found',
    ]);
    const listed = await gw.request('GET', '/v1/webhook-endpoints', { key: stranger.key });
    expect(listed.body.triggers.map((t: { id: string }) => t.id)).toEqual([strangerEndpoint.id]);
    const drained = await gw.request('POST', '/v1/webhook-endpoints/retry-pending', { key: stranger.key });
    expect(drained.body.scanned).toBe(0);
    expect(await getEndpointOf(owner, endpoint.id)).toMatchObject({ name: 'orders', status: 'active' });
  });

  it('refuses restricted keys with route_scope_unmapped', async () => {
    const tenant = await gw.createTenant();
    const restricted = await gw.createKey(tenant.projectId, { scopes: ['sessions:read'] });
    for (const [method, path] of [
      ['GET', '/v1/webhook-endpoints'],
      ['POST', '/v1/webhook-endpoints/retry-pending'],
      ['GET', '/v1/events'],
    ]) {
      const r = await gw.request(method, path, { key: restricted.key });
      expect([path, r.status, r.body.error.code]).toEqual([path, 403, 'route_scope_unmapped']);
    }
  });
});

describe('determinism', () => {
  it('replays the recorded histories of its delivery chains (retries, dead letters, holds, updates) without divergence', async () => {
    expect(recordedChains.length).toBeGreaterThanOrEqual(4);
    for (const chainId of recordedChains) {
      const history = await gw.env.client.workflow.getHandle(`delivery/${chainId}`).fetchHistory();
      await Worker.runReplayHistory(
        { workflowBundle: { codePath: process.env.GATEWAY_WORKFLOW_BUNDLE! } },
        history,
        `delivery/${chainId}`,
      );
    }
  });

  it('replays a delivery history recorded from an earlier version of the workflow', async () => {
    // Binary History protobuf of the "fails three times, then recovers" chain.
    const history = temporal.api.history.v1.History.decode(
      readFileSync(path.join(__dirname, 'replay', 'webhook-delivery-retries.history')),
    );
    await Worker.runReplayHistory(
      { workflowBundle: { codePath: process.env.GATEWAY_WORKFLOW_BUNDLE! } },
      history,
      'delivery/recorded',
    );
  });
});
