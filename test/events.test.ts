import { sql } from 'slonik';
import { z } from 'zod';
import { EVENT_CATALOG, EVENT_TYPE_PATTERN, EVENT_TYPES } from '../contracts/event-catalog';
import { emitEvent } from './support/events';
import { startGateway, type Gateway } from './support/harness';
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

describe('the event log', () => {
  it("lists the project's events newest first in the payload shape receivers get, with a type filter and a cursor", async () => {
    const tenant = await gw.createTenant();
    const first = await emitEvent(gw, tenant, 'consent.created', { token_hint: 'ctk_…1' });
    const second = await emitEvent(gw, tenant, 'consent.consumed', {
      mandate_id: 'mdt_1',
      cap_minor: 50_000n,
    });
    const third = await emitEvent(gw, tenant, 'consent.created', { token_hint: 'ctk_…2' });

    const all = await gw.request('GET', '/v1/events', { key: tenant.key });
    expect(all.status).toBe(200);
    expect(all.body.events.map((e: { id: string }) => e.id)).toEqual([third.id, second.id, first.id]);
    expect(all.body.events[1]).toEqual({
      id: second.id,
      type: 'consent.consumed',
      created_at: second.created_at,
      project_id: tenant.projectId,
      environment: 'test',
      data: { mandate_id: 'mdt_1', cap_minor: '50000' },
    });
    const page = await gw.request('GET', '/v1/events?limit=2', { key: tenant.key });
    expect(page.body.next_before).toBe(second.id);
    const rest = await gw.request('GET', `/v1/events?limit=2&before=${page.body.next_before}`, {
      key: tenant.key,
    });
    expect(rest.body).toEqual({ events: [expect.objectContaining({ id: first.id })], next_before: null });
    const filtered = await gw.request('GET', '/v1/events?type=consent.created', { key: tenant.key });
    expect(filtered.body.events.map((e: { id: string }) => e.id)).toEqual([third.id, first.id]);

    const one = await gw.request('GET', `/v1/events/${first.id}`, { key: tenant.key });
    expect(one.body).toMatchObject({ id: first.id, type: 'consent.created' });
    expect((await gw.request('GET', '/v1/events?limit=0', { key: tenant.key })).status).toBe(400);
    expect((await gw.request('GET', '/v1/events/evt_nope', { key: tenant.key })).body.error.code).toBe(
      'not_found',
    );
  });

  it("never shows one tenant's events to another", async () => {
    const owner = await gw.createTenant();
    const stranger = await gw.createTenant({ name: 'Other' });
    const event = await emitEvent(gw, owner, 'wallet.created', { wallet_id: 'wal_1' });
    expect((await gw.request('GET', `/v1/events/${event.id}`, { key: stranger.key })).status).toBe(404);
    expect((await gw.request('GET', '/v1/events', { key: stranger.key })).body.events).toEqual([]);
  });

  it('delivers events committed while no worker was running once one starts again', async () => {
    const tenant = await gw.createTenant();
    const created = await gw.request('POST', '/v1/webhook-endpoints', {
      key: tenant.key,
      body: { name: 'late', event: 'mandate.revoked', webhook_url: `${receiver.url}/late` },
    });
    expect(created.status).toBe(201);
    await gw.stopWorker();
    const event = await emitEvent(gw, tenant, 'mandate.revoked', { mandate_id: 'mdt_late' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.requests.filter((r) => r.path === '/late')).toHaveLength(0);
    await gw.startWorker();
    const [request] = (await receiver.waitFor(1)).filter((r) => r.path === '/late');
    expect(JSON.parse(request.body)).toMatchObject({ id: event.id, type: 'mandate.revoked' });
  });

  it('stores an event no active endpoint subscribes to as already dispatched, and leaves a subscribed one to the dispatcher', async () => {
    const tenant = await gw.createTenant();
    const dispatchedAt = async (id: string) =>
      gw.db.oneFirst(sql.type(z.object({ born: z.boolean() }))`
      SELECT dispatched_at = created_at AS born FROM events WHERE id = ${id}`);
    // No endpoint at all, then one subscribed to another type, then a paused subscriber: nothing to fan out.
    expect(
      await dispatchedAt((await emitEvent(gw, tenant, 'mandate.signed', { mandate_id: 'mdt_1' })).id),
    ).toBe(true);
    const other = await gw.request('POST', '/v1/webhook-endpoints', {
      key: tenant.key,
      body: { name: 'other', event: 'mandate.revoked', webhook_url: `${receiver.url}/other` },
    });
    expect(
      await dispatchedAt((await emitEvent(gw, tenant, 'mandate.signed', { mandate_id: 'mdt_2' })).id),
    ).toBe(true);
    const subscriber = await gw.request('POST', '/v1/webhook-endpoints', {
      key: tenant.key,
      body: { name: 'signed', event: 'mandate.signed', webhook_url: `${receiver.url}/signed` },
    });
    expect([other.status, subscriber.status]).toEqual([201, 201]);
    await gw.request('PATCH', `/v1/webhook-endpoints/${subscriber.body.id}`, {
      key: tenant.key,
      body: { status: 'paused' },
    });
    expect(
      await dispatchedAt((await emitEvent(gw, tenant, 'mandate.signed', { mandate_id: 'mdt_3' })).id),
    ).toBe(true);
    // An active subscriber: the event waits for the dispatcher, which claims it in a later transaction and delivers it.
    await gw.request('PATCH', `/v1/webhook-endpoints/${subscriber.body.id}`, {
      key: tenant.key,
      body: { status: 'active' },
    });
    const seen = receiver.requests.length;
    const delivered = await emitEvent(gw, tenant, 'mandate.signed', { mandate_id: 'mdt_4' });
    const [request] = (await receiver.waitFor(seen + 1)).filter((r) => r.path === '/signed');
    expect(JSON.parse(request.body)).toMatchObject({ id: delivered.id, data: { mandate_id: 'mdt_4' } });
    expect(await dispatchedAt(delivered.id)).toBe(false);
    expect(receiver.requests.filter((r) => r.path === '/signed' || r.path === '/other')).toHaveLength(1);
  });

  it('documents the catalog, the payload and the webhook in the OpenAPI document', async () => {
    const doc = (await gw.request('GET', '/openapi.json')).body;
    expect(doc.webhooks.event.post.requestBody.content['application/json'].schema.required).toEqual([
      'id',
      'type',
      'created_at',
      'project_id',
      'environment',
      'data',
    ]);
    expect(doc.components.schemas.Event.properties.type.enum).toEqual(EVENT_TYPES);
    expect(doc.paths['/v1/events'].get.description).toContain('`commerce.ted_in.succeeded`');
    for (const path of [
      '/v1/webhook-endpoints',
      '/v1/webhook-endpoints/{id}',
      '/v1/webhook-endpoints/{id}/deliveries/{delivery_id}',
      '/v1/events/{event_id}/replay',
    ]) {
      expect(doc.paths[path]).toBeDefined();
    }
  });
});

describe('the event catalog', () => {
  it.each(EVENT_TYPES)(
    "names %s in the outbox's dot-separated lowercase form, with a description",
    (type) => {
      expect(type).toMatch(EVENT_TYPE_PATTERN);
      expect(EVENT_CATALOG[type].description.length).toBeGreaterThan(10);
    },
  );

  it('includes the events the spec names and one per area', () => {
    expect(EVENT_TYPES).toEqual(
      expect.arrayContaining(['tool_call.succeeded', 'tool_call.failed', 'commerce.ted_in.succeeded']),
    );
    const areas = new Set(Object.values(EVENT_CATALOG).map((spec) => spec.area));
    expect([...areas].sort()).toEqual([
      'approvals',
      'cards',
      'commerce',
      'consents',
      'consumers',
      'contact_verification',
      'kyc',
      'ledger',
      'mandates',
      'oauth',
      'payment_links',
      'payments',
      'provisioning',
      'receipts',
      'tools',
      'wallets',
      'webhooks',
    ]);
  });
});

describe('inbound code-host webhook', () => {
  const post = (event: string | undefined, body: unknown) =>
    gw.request('POST', '/webhooks/codehost', { body, headers: event ? { 'X-Codehost-Event': event } : {} });
  const repository = { full_name: 'acme/gateway' };

  it.each([
    [
      'workflow_run',
      {
        action: 'completed',
        repository,
        workflow_run: { name: 'ci', status: 'completed', conclusion: 'failure', head_branch: 'main' },
      },
      'completed',
    ],
    [
      'pull_request',
      {
        action: 'opened',
        repository,
        pull_request: { number: 7, title: 'Add hooks', head: { ref: 'feat' } },
      },
      'opened',
    ],
    ['push', { repository, ref: 'refs/heads/main', commits: [{}, {}] }, undefined],
    [
      'check_run',
      {
        action: 'completed',
        repository,
        check_run: {
          name: 'lint',
          status: 'completed',
          conclusion: 'success',
          check_suite: { head_branch: 'main' },
        },
      },
      'completed',
    ],
  ])('normalizes %s and answers 200 processed', async (event, body, action) => {
    const r = await post(event, body);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      received: true,
      event,
      ...(action ? { action } : {}),
      repo: 'acme/gateway',
      processed: true,
    });
  });

  it('answers 200 with a reason for types it does not handle and for a missing header', async () => {
    const ignored = await post('issues', { action: 'opened', repository });
    expect(ignored.body).toEqual({
      received: true,
      event: 'issues',
      processed: false,
      reason: 'event type "issues" is not handled',
    });
    const missing = await post(undefined, { repository });
    expect(missing.status).toBe(200);
    expect(missing.body).toMatchObject({ received: true, processed: false });
  });

  it('accepts the form-encoded delivery style with a payload field', async () => {
    const form = new URLSearchParams({
      payload: JSON.stringify({ repository, ref: 'refs/heads/dev', commits: [] }),
    }).toString();
    const r = await gw.request('POST', '/webhooks/codehost', {
      raw: form,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Codehost-Event': 'push' },
    });
    expect(r.body).toEqual({ received: true, event: 'push', repo: 'acme/gateway', processed: true });
  });
});
