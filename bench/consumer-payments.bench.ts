// Consumer payments on a real stack (temporal server start-dev, real worker, embedded PostgreSQL, mock
// PSP): spend attempts through the workflow at concurrency 16, and the idempotent replay of stored
// answers (no Temporal): each settled attempt presented once more (cold: one PostgreSQL round trip), and
// one settled attempt presented over and over (warm: served from the API process's memory). GET
// /v1/whoami in the same run is the baseline, and a bare node:http server in the same process answering
// a body of the replay's size is the floor: what any HTTP reply costs on this machine right now. Load
// comes from a child process, so the client does not share the API's event loop; "API CPU" is the bench
// process's CPU time (user + system) per request (the in-process worker included).
// Each spend is the whole path: mandate verification, caps, policy, hold, Pix dispatch to the mock PSP,
// debit and a receipt sealed with both signatures. Spends are spread over CONCURRENCY consumers, each
// with its own signed mandate and funded sub-account, because one mandate's spends serialize on its lock.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startBenchStack } from './support/stack';
import { formatResult, machineLine, type LoadResult } from './support/load';
import { spawnLoad } from './support/spawn-load';
import { spawnRotating } from './support/spawn-rotating';
import { pixSpend, readyConsumer } from '../test/support/consumer-spend';

const CONCURRENCY = 16;
const SPENDS = Number(process.env.BENCH_SPENDS ?? 400);
const REPLAYS = Number(process.env.BENCH_REPLAYS ?? 4_000);

type Measured = LoadResult & { cpuUs: number };

/** Runs one load and adds this process's CPU time per request while it ran. */
async function measured(run: () => Promise<LoadResult>): Promise<Measured> {
  const before = process.cpuUsage();
  const result = await run();
  const used = process.cpuUsage(before);
  return { ...result, cpuUs: (used.user + used.system) / result.requests };
}

const line = (result: Measured) =>
  `${formatResult(result)}   API CPU ${result.cpuUs.toFixed(0).padStart(5)} µs/req`;

async function main(): Promise<void> {
  const stack = await startBenchStack();
  const tenant = await stack.createTenant();
  const headers = { Authorization: `Bearer ${tenant.key}`, 'Content-Type': 'application/json' };
  const url = `${stack.url}/v1/consumer-payments/execute`;
  const consumers = await Promise.all(
    Array.from({ length: CONCURRENCY }, () =>
      readyConsumer(stack, tenant, {
        fundMinor: 1_000_000_000,
        intent: { cap_minor: 1_000_000_000, per_tx_cap_minor: 10_000 },
      }),
    ),
  );

  const whoami = await measured(() =>
    spawnLoad({
      label: 'GET /v1/whoami (baseline)',
      url: `${stack.url}/v1/whoami`,
      headers,
      total: REPLAYS,
      concurrency: CONCURRENCY,
      warmup: 500,
    }),
  );

  // Bodies rotate over the consumers, so CONCURRENCY spends in flight hold CONCURRENCY different mandates.
  const bodies = Array.from({ length: SPENDS }, (_, i) =>
    JSON.stringify(pixSpend(consumers[i % CONCURRENCY], { amount_minor: 1_050 })),
  );
  const spends = await measured(() =>
    spawnRotating({
      label: 'completed Pix spend through the workflow',
      url,
      method: 'POST',
      headers,
      bodies,
      total: SPENDS,
      concurrency: CONCURRENCY,
    }),
  );
  // Half the settled attempts are presented again by one caller at a time (the replay's own latency), the
  // other half at CONCURRENCY (the same replays queued behind each other on two cores).
  const half = Math.floor(SPENDS / 2);
  const coldAlone = await measured(() =>
    spawnRotating({
      label: 'replay, each settled attempt once (cold), c=1',
      url,
      method: 'POST',
      headers,
      bodies: bodies.slice(0, half),
      total: half,
      concurrency: 1,
    }),
  );
  const cold = await measured(() =>
    spawnRotating({
      label: `replay, each settled attempt once (cold), c=${CONCURRENCY}`,
      url,
      method: 'POST',
      headers,
      bodies: bodies.slice(half),
      total: SPENDS - half,
      concurrency: CONCURRENCY,
    }),
  );

  // One settled attempt, presented again and again: the client retry storm replays exist for.
  const stored = bodies[0];
  const check = await fetch(url, { method: 'POST', headers, body: stored });
  const checked = (await check.json()) as { status?: string; idempotent_replay?: boolean };
  if (
    check.status !== 200 ||
    check.headers.get('idempotent-replayed') !== 'true' ||
    checked.status !== 'completed' ||
    checked.idempotent_replay !== true
  ) {
    throw new Error(
      `expected a verbatim replay of a completed spend, got ${check.status} ${JSON.stringify(checked)}`,
    );
  }
  const warmAlone = await measured(() =>
    spawnLoad({
      label: 'replay of one settled attempt (warm), c=1',
      url,
      method: 'POST',
      headers,
      body: stored,
      total: REPLAYS / 4,
      concurrency: 1,
      warmup: 200,
    }),
  );
  const warm = await measured(() =>
    spawnLoad({
      label: `replay of one settled attempt (warm), c=${CONCURRENCY}`,
      url,
      method: 'POST',
      headers,
      body: stored,
      total: REPLAYS,
      concurrency: CONCURRENCY,
      warmup: 500,
    }),
  );

  // The floor: reads the request body and answers a fixed body of the replay's size, nothing else.
  const fixed = Buffer.from(JSON.stringify(checked));
  const bare = http.createServer((req, res) => {
    req.resume();
    req.on('end', () =>
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': fixed.length }).end(fixed),
    );
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const floor = await measured(() =>
    spawnLoad({
      label: 'bare node:http, same body sizes (floor)',
      url: `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`,
      method: 'POST',
      headers,
      body: stored,
      total: REPLAYS,
      concurrency: CONCURRENCY,
      warmup: 500,
    }),
  );
  bare.close();

  console.log(machineLine());
  console.log(
    `consumer payments: concurrency ${CONCURRENCY}; a replay answers 200 only as a replay (any change would be 409), so errors count anything else`,
  );
  for (const result of [floor, whoami, spends, coldAlone, cold, warmAlone, warm]) console.log(line(result));
  console.log(`warm replay / whoami throughput ratio: ${(warm.rps / whoami.rps).toFixed(2)}`);
  const replayP99 = Math.max(coldAlone.p99, warmAlone.p99);
  console.log(
    `target: replay p99 < 5 ms for one caller (${replayP99 < 5 ? 'met' : 'missed'}: cold ${coldAlone.p99.toFixed(2)} ms, warm ${warmAlone.p99.toFixed(2)} ms); at c=${CONCURRENCY} (${warm.p99 < 5 ? 'met' : 'missed'}: warm ${warm.p99.toFixed(2)} ms, cold ${cold.p99.toFixed(2)} ms; whoami p99 ${whoami.p99.toFixed(2)} ms, bare node:http floor p99 ${floor.p99.toFixed(2)} ms)`,
  );
  const spendCpuMs = spends.cpuUs / 1000;
  console.log(
    `process CPU (API + worker + mocks) per completed spend: ${spendCpuMs.toFixed(1)} ms (target < 10 ms: ${spendCpuMs < 10 ? 'met' : 'missed'})`,
  );
  console.log(
    `target: 100 spends/s with p50 < 30 ms and p99 < 100 ms at c=${CONCURRENCY} (${spends.rps >= 100 && spends.p50 < 30 && spends.p99 < 100 ? 'met' : 'missed'})`,
  );
  await stack.stop();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
