// Wallet execute through the full path (HTTP → Update-with-Start → spend workflow on a real worker →
// Postgres hold → mock provider over HTTP → debit) at concurrency 16, every request a new attempt.
// Baselines in the same run: one ledger post over HTTP (the money work without Temporal) and the one-activity
// probe workflow (what Temporal itself costs here), both at the same concurrency.
import { executeBodies, fundedWallets } from './support/wallets';
import { startBenchStack } from './support/stack';
import { formatResult, machineLine, runLoad } from './support/load';
import { spawnRotating } from './support/spawn-rotating';

const CONCURRENCY = 16;
const TOTAL = Number(process.env.BENCH_EXECUTES ?? 1_000);

async function main(): Promise<void> {
  const stack = await startBenchStack({ poolSize: 40 });
  const tenant = await stack.createTenant();
  const headers = { Authorization: `Bearer ${tenant.key}` };
  const wallets = await fundedWallets(stack, tenant, 16, 'bench');
  const post = (walletId: string) =>
    JSON.stringify({
      wallet_id: walletId,
      org_id: tenant.orgId,
      currency: 'BRL',
      amount_minor: '1',
      // A test key's sandbox top-up: the one kind a key may post (fee and the rest are operator adjustments).
      kind: 'fund',
    });
  const baseline = await spawnRotating({
    label: 'ledger post over HTTP (baseline)',
    url: `${stack.url}/v1/ledger-entries`,
    method: 'POST',
    headers,
    bodies: wallets.map(post),
    total: TOTAL,
    concurrency: CONCURRENCY,
    warmup: 200,
  });

  // Each request goes to one of 16 wallets, so the figure is Temporal's path rather than one hot balance row.
  const urls = wallets.map((w) => `${stack.url}/v1/wallets/${w}/execute`);
  await spawnRotating({
    label: 'warmup',
    url: urls,
    method: 'POST',
    headers,
    bodies: executeBodies('warm', 100),
    total: 100,
    concurrency: CONCURRENCY,
  });
  // This process runs the API, the worker and the mocks: its CPU time per completed attempt is the spend's cost here.
  const cpuBefore = process.cpuUsage();
  const execute = await spawnRotating({
    label: 'wallet execute, full Temporal path',
    url: urls,
    method: 'POST',
    headers,
    bodies: executeBodies('run', TOTAL),
    total: TOTAL,
    concurrency: CONCURRENCY,
  });
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMsPerSpend = (cpu.user + cpu.system) / 1000 / TOTAL;
  const replay = await spawnRotating({
    label: 'wallet execute replay (from Postgres)',
    url: urls,
    method: 'POST',
    headers,
    bodies: executeBodies('run', TOTAL),
    total: TOTAL,
    concurrency: CONCURRENCY,
  });
  // One finished attempt presented again and again: after its first replay it is served from the API process's memory.
  const warmReplay = await spawnRotating({
    label: 'wallet execute replay, one attempt (warm)',
    url: urls[0],
    method: 'POST',
    headers,
    bodies: executeBodies('run', 1),
    total: TOTAL * 4,
    concurrency: CONCURRENCY,
    warmup: 200,
  });

  // The Temporal floor on this machine: the one-activity probe workflow, started and awaited at the same concurrency.
  let probes = 0;
  const floor = await runLoad(
    'probe workflow, start + result (Temporal floor)',
    { total: Math.min(TOTAL, 400), concurrency: CONCURRENCY },
    async () => {
      await stack.deps.temporal.client.workflow.execute('workerProbe', {
        taskQueue: stack.deps.temporal.taskQueue,
        workflowId: `probe/bench-${probes++}`,
        args: [],
      });
      return true;
    },
  );

  const completed = await stack.db.oneFirst(
    (await import('slonik')).sql
      .unsafe`SELECT count(*)::int AS n FROM attempts WHERE family = 'wallet_execute' AND status = 'completed'`,
  );
  const rss = process.memoryUsage().rss / 2 ** 20;

  console.log(machineLine());
  console.log(`wallet execute: ${TOTAL} attempts at concurrency ${CONCURRENCY}`);
  for (const result of [baseline, floor, execute, replay, warmReplay]) console.log(formatResult(result));
  console.log(`execute / Temporal floor throughput ratio: ${(execute.rps / floor.rps).toFixed(2)}`);
  console.log(
    `process CPU (API + worker + mocks) per completed attempt: ${cpuMsPerSpend.toFixed(1)} ms (target < 10 ms: ${cpuMsPerSpend < 10 ? 'met' : 'missed'})`,
  );
  console.log(`execute / ledger-post throughput ratio: ${(execute.rps / baseline.rps).toFixed(2)}`);
  console.log(`completed attempts in Postgres: ${completed} (expected ${TOTAL + 100})`);
  console.log(`API + worker + mocks resident memory (one process): ${rss.toFixed(0)} MB`);
  console.log(
    `targets: p50 < 30 ms (${execute.p50 < 30 ? 'met' : 'missed'}), p99 < 100 ms (${execute.p99 < 100 ? 'met' : 'missed'}), RSS < 500 MB (${rss < 500 ? 'met' : 'missed'})`,
  );
  await stack.stop();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
