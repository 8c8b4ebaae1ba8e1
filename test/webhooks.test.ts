import { Webhook } from 'standardwebhooks';
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
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met in time; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const deliveriesOf = async (tenant: Tenant, triggerId: string) =>
  (await gw.request('GET', `/v1/webhook-endpoints/${triggerId}/deliveries?limit=200`, { key: tenant.key })).body.deliveries as any[];

describe('delivery', () => {
  it('delivers a committed event signed so a Standard Webhooks library verifies it', async () => {
    const tenant = await gw.createTenant();
    const endpoint = await createEndpoint(tenant);
    expect(endpoint.signing_secret).toMatch(/^whsec_/);
    const event = await emitEvent(gw, tenant, 'payment.succeeded', { amount_minor: 1250n, attempt_id: 'att_1' });

    const [request] = await receiver.waitFor(1);
    const payload = new Webhook(endpoint.signing_secret).verify(request.body, {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    });
    expect(payload).toEqual({
      id: event.id, type: 'payment.succeeded', created_at: event.created_at, project_id: tenant.projectId, environment: 'test',
      data: { amount_minor: '1250', attempt_id: 'att_1' },
    });
    expect(request.headers['webhook-id']).toBe(event.id);

    const [delivery] = await eventually(() => deliveriesOf(tenant, endpoint.id), (rows) => rows[0]?.status === 'delivered');
    expect(delivery).toMatchObject({ trigger_id: endpoint.id, event_id: event.id, attempt: 1, status: 'delivered', origin: 'dispatch' });
    expect(delivery.response).toMatchObject({ status: 200, body: 'ok', body_truncated: false });
    expect(delivery.request.headers['webhook-signature']).toBe(request.headers['webhook-signature']);
    const after = await gw.request('GET', `/v1/webhook-endpoints/${endpoint.id}`, { key: tenant.key });
    expect(after.body).toMatchObject({ total_runs: 1, signing_enabled: true, status: 'active' });
    expect(after.body.last_run_at).toEqual(delivery.attempted_at);
    expect(after.body.signing_secret).toBeUndefined();
  });
});
