// Prometheus metrics through HTTP: the API's /metrics takes only the service credential; after a wallet
// execute its counters have moved (the request by route template and status, its latency, the attempt's
// outcome, the ledger posts, the webhook delivery it triggered) and its gauges report the pool and the
// backlogs. The worker process's own listener serves the same families plus the Temporal SDK's worker
// metrics (task latencies), on both Temporal servers.
import { installRuntime } from '../worker/worker';
import { startWorker, type RunningWorker } from '../worker/main';
import { loadConfig } from '../runtime/config';
import { freePort } from './support/free-port';
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';
import { fund, newWallet } from './support/money';
import { startReceiver, type Receiver } from './support/receiver';

/** One sample's value from Prometheus text; 0 when the series has not been written yet. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return 0;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 300; i += 1) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`gave up waiting for ${what}`);
}

let sdkAddress: string;
beforeAll(async () => {
  // The SDK's runtime is process-wide: installed with its Prometheus exporter before any gateway starts a worker.
  sdkAddress = `127.0.0.1:${await freePort()}`;
  installRuntime('ERROR', sdkAddress);
});

describe.each(TEMPORAL_SERVERS)('metrics on the %s Temporal server', (server) => {
  let gw: Gateway;
  let receiver: Receiver;
  let worker: RunningWorker;
  let workerMetrics: string;
  beforeAll(async () => {
    gw = await startGateway({ temporal: server });
    receiver = await startReceiver();
    // The production worker entry point, with its metrics listener, beside the harness's worker.
    const port = await freePort();
    workerMetrics = `http://127.0.0.1:${port}/metrics`;
    worker = await startWorker({
      config: loadConfig({
        ...process.env,
        DATABASE_URL: gw.config.databaseUrl,
        LOG_LEVEL: 'error',
        GATEWAY_WORKER_METRICS_PORT: String(port),
        TEMPORAL_METRICS_ADDRESS: sdkAddress,
        TEMPORAL_TASK_QUEUE: `metrics-${server}`,
      }),
      temporalAddress: gw.env.address,
    });
  }, 120_000);
  afterAll(async () => {
    await worker?.stop();
    await receiver?.stop();
    await gw?.stop();
  });

  const scrapeApi = async () => {
    const reply = await gw.request('GET', '/metrics', {
      headers: { Authorization: `Bearer ${gw.serviceToken}` },
    });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toContain('text/plain');
    return reply.text;
  };

  it('answers /metrics only to the service credential', async () => {
    const t: Tenant = await gw.createTenant();
    expect((await gw.request('GET', '/metrics')).status).toBe(401);
    const withKey = await gw.request('GET', '/metrics', { key: t.key });
    expect(withKey.status).toBe(401);
    expect(withKey.text).not.toContain('gateway_http_requests_total');
  });

  it('moves the request, latency, attempt, ledger and delivery counters after a wallet execute, and reports the pool and backlogs', async () => {
    const t = await gw.createTenant();
    const wallet = await newWallet(gw, t, { agent_id: 'shopper' });
    await fund(gw, t, wallet, 100_000);
    const endpoint = await gw.request('POST', '/v1/webhook-endpoints', {
      key: t.key,
      body: { name: 'payments', event: 'payment.succeeded', webhook_url: `${receiver.url}/hooks` },
    });
    expect(endpoint.status).toBe(201);

    const route = { method: 'POST', route: '/v1/wallets/:id/execute' };
    const before = await scrapeApi();
    const executed = await gw.request('POST', `/v1/wallets/${wallet}/execute`, {
      key: t.key,
      body: {
        amount: 12.5,
        currency: 'BRL',
        recipient: 'vendor-9',
        description: 'Cables',
        mandate_id: 'mdt_1',
        attempt_id: `metrics-${server}-${Date.now()}`,
      },
    });
    expect(executed.status).toBe(200);
    await receiver.waitFor(1);

    const after = await until(
      scrapeApi,
      (text) =>
        sample(text, 'gateway_webhook_delivery_attempts_total', { outcome: 'delivered' }) >
        sample(before, 'gateway_webhook_delivery_attempts_total', { outcome: 'delivered' }),
      'the delivery to be counted',
    );
    const moved = (name: string, labels: Record<string, string>) =>
      sample(after, name, labels) - sample(before, name, labels);
    expect(moved('gateway_http_requests_total', { ...route, status: '200' })).toBe(1);
    expect(moved('gateway_http_request_duration_seconds_count', route)).toBe(1);
    expect(sample(after, 'gateway_http_request_duration_seconds_sum', route)).toBeGreaterThan(
      sample(before, 'gateway_http_request_duration_seconds_sum', route),
    );
    expect(moved('gateway_attempts_total', { family: 'wallet_execute', outcome: 'succeeded' })).toBe(1);
    expect(moved('gateway_ledger_posts_total', { kind: 'hold' })).toBe(1);
    expect(moved('gateway_ledger_posts_total', { kind: 'debit' })).toBe(1);
    expect(moved('gateway_webhook_delivery_attempts_total', { outcome: 'delivered' })).toBe(1);
    // Route templates, never raw paths with ids in them.
    expect(after).not.toContain(wallet);

    expect(after).toMatch(/^gateway_db_pool_connections\{state="idle"\} \d+$/m);
    expect(after).toMatch(/^gateway_approvals_pending \d+$/m);
    expect(after).toMatch(/^gateway_webhook_backlog\{stage="pending"\} \d+$/m);
    expect(after).toMatch(/^process_cpu_seconds_total /m);
  });

  it("serves the worker's metrics on its own listener, with the Temporal SDK's worker task latencies", async () => {
    const text = await until(
      async () => (await fetch(workerMetrics)).text(),
      (body) => /^temporal_workflow_task_execution_latency/m.test(body),
      "the SDK's workflow task latencies",
    );
    expect(text).toMatch(/^gateway_webhook_backlog\{stage="undispatched"\} \d+$/m);
    expect(text).toMatch(/^gateway_db_pool_connections\{state="active"\} \d+$/m);
    expect(
      sample(text, 'gateway_attempts_total', { family: 'wallet_execute', outcome: 'succeeded' }),
    ).toBeGreaterThanOrEqual(1);
    expect((await fetch(workerMetrics.replace('/metrics', '/other'))).status).toBe(404);
  });
});
