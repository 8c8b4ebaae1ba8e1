// Delivery under failure: the receiver timeout, and the worker's sweep restarting a chain whose
// workflow never started (a crash between the fan-out commit and the workflow start). This file runs
// its gateway with a 1 s receiver timeout and a 0.5 s sweep so both are observable quickly; what the
// tests judge is outcome and order, never elapsed time.
import { sql } from 'slonik';
import { fanOutUndispatched } from '../domain/webhooks/deliveries';
import { emitEvent } from './support/events';
import { startGateway, type Gateway } from './support/harness';
import { startReceiver, type Receiver } from './support/receiver';

let gw: Gateway;
let receiver: Receiver;
beforeAll(async () => {
  process.env.WEBHOOK_TIMEOUT_MS = '1000';
  process.env.WEBHOOK_SWEEP_INTERVAL_MS = '500';
  gw = await startGateway();
  receiver = await startReceiver();
});
afterAll(async () => {
  delete process.env.WEBHOOK_TIMEOUT_MS;
  delete process.env.WEBHOOK_SWEEP_INTERVAL_MS;
  await receiver?.stop();
  await gw?.stop();
});

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

it('fails an attempt whose receiver does not answer within the timeout, and schedules the retry', async () => {
  const tenant = await gw.createTenant();
  // The receiver holds its answer far longer than the test runs: only the timeout can end the attempt.
  receiver.answer = (request) =>
    request.path === '/slow' ? { status: 200, delayMs: 600_000 } : { status: 200 };
  const created = await gw.request('POST', '/v1/webhook-endpoints', {
    key: tenant.key,
    body: { name: 'slow', event: 'payment.succeeded', webhook_url: `${receiver.url}/slow` },
  });
  await emitEvent(gw, tenant, 'payment.succeeded', { n: 1 });
  const rows = await eventually(
    async () =>
      (await gw.request('GET', `/v1/webhook-endpoints/${created.body.id}/deliveries`, { key: tenant.key }))
        .body.deliveries as any[],
    (list) => list.some((row) => row.attempt === 1 && row.status !== 'pending'),
  );
  const first = rows.find((row) => row.attempt === 1);
  expect(first).toMatchObject({ status: 'failed', error: 'timeout', response: null });
  expect(Number.isInteger(first.duration_ms)).toBe(true);
  expect(rows.find((row) => row.attempt === 2)).toMatchObject({ status: 'pending' });
  expect(
    (await gw.request('GET', `/v1/webhook-endpoints/${created.body.id}`, { key: tenant.key })).body
      .total_runs,
  ).toBe(0);
});

it('restarts a chain whose workflow never started once its attempt is overdue', async () => {
  const tenant = await gw.createTenant();
  receiver.answer = () => ({ status: 200 });
  const created = await gw.request('POST', '/v1/webhook-endpoints', {
    key: tenant.key,
    body: { name: 'lost', event: 'wallet.frozen', webhook_url: `${receiver.url}/lost` },
  });
  await gw.stopWorker();
  const event = await emitEvent(gw, tenant, 'wallet.frozen', { wallet_id: 'wal_1' });
  // The fan-out commits its delivery row, then the process "crashes" before starting the workflow.
  const { chains } = await gw.db.transaction((tx) => fanOutUndispatched(tx, 100));
  expect(chains.map((chain) => chain.event_id)).toEqual([event.id]);
  await gw.db.query(
    sql.unsafe`UPDATE webhook_deliveries SET scheduled_at = now() - interval '5 minutes' WHERE chain_id = ${chains[0].chain_id}`,
  );
  await gw.startWorker();
  await eventually(
    async () => receiver.requests.filter((r) => r.path === '/lost').length,
    (n) => n === 1,
  );
  const rows = await eventually(
    async () =>
      (await gw.request('GET', `/v1/webhook-endpoints/${created.body.id}/deliveries`, { key: tenant.key }))
        .body.deliveries as any[],
    (list) => list[0]?.status === 'delivered',
  );
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({ event_id: event.id, attempt: 1, status: 'delivered' });
});
