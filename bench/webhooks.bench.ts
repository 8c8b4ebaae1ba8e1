// Webhook delivery on the real stack (durable PostgreSQL, `temporal server start-dev`, a real worker
// with its event dispatcher) to a fast receiver on loopback:
//   1. time from a committed event to its first delivery attempt arriving, one event at a time (p50/p99);
//   2. deliveries per second for a burst of events, against two baselines measured in the same run:
//      the same signed POSTs sent straight to the receiver (the HTTP ceiling), and the smallest
//      Temporal workflow (the worker probe: one activity) run at the same concurrency (what a workflow
//      per delivery would be capped at here; first attempts go out from the dispatcher, and only a
//      chain that has to wait becomes a workflow).
import { recordEvent } from '../domain/events/record';
import { signedHeaders } from '../domain/webhooks/signing';
import { sendWebhook } from '../providers/webhooks/sender';
import { startReceiver } from '../test/support/receiver';
import { machineLine, percentile } from './support/load';
import { startBenchStack } from './support/stack';

const LATENCY_EVENTS = Number(process.env.BENCH_LATENCY_EVENTS ?? 200);
const BURST_EVENTS = Number(process.env.BENCH_BURST_EVENTS ?? 1_000);
const EVENTS_PER_TRANSACTION = 50;
const BASELINE_CONCURRENCY = 64;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const stack = await startBenchStack();
  const receiver = await startReceiver();
  receiver.answer = () => ({ status: 204 });
  const tenant = await stack.createTenant();
  const created = await stack.request('POST', '/v1/webhook-endpoints', {
    key: tenant.key,
    body: { name: 'bench', event: 'payment.succeeded', webhook_url: `${receiver.url}/bench` },
  });
  if (created.status !== 201) throw new Error(`endpoint: ${created.status} ${created.text}`);
  const scope = { orgId: tenant.orgId, projectId: tenant.projectId, environment: 'test' as const };
  const arrivals = () => new Map(receiver.requests.map((r) => [String(r.headers['webhook-id']), r.at]));

  // Warm-up: connections, workflow cache, JIT.
  for (let i = 0; i < 20; i++)
    await stack.db.transaction((tx) => recordEvent(tx, scope, 'payment.succeeded', { warmup: i }));
  await receiver.waitFor(20, 60_000);
  receiver.requests.length = 0;

  // 1. Commit-to-first-attempt latency, one event at a time.
  const committedAt = new Map<string, number>();
  for (let i = 0; i < LATENCY_EVENTS; i++) {
    const event = await stack.db.transaction((tx) => recordEvent(tx, scope, 'payment.succeeded', { i }));
    committedAt.set(event.id, Date.now());
    await sleep(25);
  }
  await receiver.waitFor(LATENCY_EVENTS, 120_000);
  const seen = arrivals();
  const latencies = [...committedAt]
    .map(([id, at]) => (seen.get(id) ?? Number.NaN) - at)
    .sort((a, b) => a - b);
  receiver.requests.length = 0;

  // 2. Burst throughput: all events committed as fast as possible, in transactions of 50.
  const burstStart = Date.now();
  const batches = Math.ceil(BURST_EVENTS / EVENTS_PER_TRANSACTION);
  await Promise.all(
    Array.from({ length: batches }, (_, b) =>
      stack.db.transaction(async (tx) => {
        for (let i = 0; i < EVENTS_PER_TRANSACTION && b * EVENTS_PER_TRANSACTION + i < BURST_EVENTS; i++) {
          await recordEvent(tx, scope, 'payment.succeeded', { b, i });
        }
      }),
    ),
  );
  const committed = Date.now();
  await receiver.waitFor(BURST_EVENTS, 600_000);
  const lastArrival = Math.max(...receiver.requests.map((r) => r.at));
  const burstSeconds = (lastArrival - burstStart) / 1000;
  const deliveredRows = await stack.db.oneFirst(
    (await import('slonik')).sql
      .unsafe`SELECT count(*)::int FROM webhook_deliveries WHERE status = 'delivered' AND project_id = ${tenant.projectId}`,
  );
  receiver.requests.length = 0;

  // Baseline: the same signed POSTs straight from this process, at the same receiver.
  const body = JSON.stringify({ id: 'evt_baseline', type: 'payment.succeeded', data: { n: 1 } });
  const baselineStart = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: BASELINE_CONCURRENCY }, async () => {
      while (next < BURST_EVENTS) {
        next++;
        const headers = {
          'content-type': 'application/json',
          ...signedHeaders(created.body.signing_secret, 'evt_baseline', Math.floor(Date.now() / 1000), body),
        };
        await sendWebhook({
          url: `${receiver.url}/baseline`,
          headers,
          body,
          timeoutMs: 15_000,
          refusePrivateAddresses: false,
          keepBytes: 4096,
        });
      }
    }),
  );
  const baselineSeconds = (Date.now() - baselineStart) / 1000;

  // Baseline: the smallest workflow (worker probe) on the same server and worker, same count.
  const { client, taskQueue } = stack.deps.temporal;
  const probeStart = Date.now();
  let probes = 0;
  await Promise.all(
    Array.from({ length: BASELINE_CONCURRENCY }, async () => {
      while (probes < BURST_EVENTS) {
        const n = probes++;
        await client.workflow.execute('workerProbe', {
          taskQueue,
          workflowId: `bench-probe/${probeStart}/${n}`,
          args: [],
        });
      }
    }),
  );
  const probeRate = BURST_EVENTS / ((Date.now() - probeStart) / 1000);

  const rate = BURST_EVENTS / burstSeconds;
  const baselineRate = BURST_EVENTS / baselineSeconds;
  console.log(machineLine());
  console.log(
    `webhooks: first attempt after commit, ${LATENCY_EVENTS} events one at a time: p50 ${percentile(latencies, 50).toFixed(0)} ms   p99 ${percentile(latencies, 99).toFixed(0)} ms   max ${latencies.at(-1)?.toFixed(0)} ms`,
  );
  console.log(
    `webhooks: burst of ${BURST_EVENTS} events (committed in ${((committed - burstStart) / 1000).toFixed(1)} s): ${rate.toFixed(0)} deliveries/s end to end (${deliveredRows} delivered rows)`,
  );
  console.log(
    `baseline: the same signed POSTs sent directly at concurrency ${BASELINE_CONCURRENCY}: ${baselineRate.toFixed(0)} req/s`,
  );
  console.log(
    `baseline: the worker probe workflow (one activity) at concurrency ${BASELINE_CONCURRENCY}: ${probeRate.toFixed(0)} workflows/s`,
  );
  console.log(
    `deliveries / direct POST ratio: ${(rate / baselineRate).toFixed(2)}   deliveries / probe workflow ratio: ${(rate / probeRate).toFixed(2)}`,
  );

  await receiver.stop();
  await stack.stop();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
