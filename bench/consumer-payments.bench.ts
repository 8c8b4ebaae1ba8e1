// Consumer payments on a real stack (temporal server start-dev, real worker, embedded PostgreSQL, mock
// PSP): spend attempts through the workflow at concurrency 16, and the idempotent replay of a stored
// answer (served from Postgres, no Temporal), with GET /v1/whoami in the same run as the baseline.
// Each spend is the whole path: mandate verification, caps, policy, hold, Pix dispatch to the mock PSP,
// debit and a receipt sealed with both signatures. Spends are spread over CONCURRENCY consumers, each
// with its own signed mandate and funded sub-account, because one mandate's spends serialize on its lock.
import { startBenchStack } from './support/stack';
import { formatResult, machineLine, runLoad } from './support/load';
import { pixSpend, readyConsumer } from '../test/support/consumer-spend';

const CONCURRENCY = 16;
const SPENDS = Number(process.env.BENCH_SPENDS ?? 400);
const REPLAYS = Number(process.env.BENCH_REPLAYS ?? 4_000);

async function main(): Promise<void> {
  const stack = await startBenchStack();
  const tenant = await stack.createTenant();
  const headers = { Authorization: `Bearer ${tenant.key}`, 'Content-Type': 'application/json' };
  const consumers = await Promise.all(Array.from({ length: CONCURRENCY }, () =>
    readyConsumer(stack, tenant, { fundMinor: 1_000_000_000, intent: { cap_minor: 1_000_000_000, per_tx_cap_minor: 10_000 } })));
  const post = (payload: unknown) => fetch(`${stack.url}/v1/consumer-payments/execute`, { method: 'POST', headers, body: JSON.stringify(payload) });

  const whoami = await runLoad('GET /v1/whoami (baseline)', { total: REPLAYS, concurrency: CONCURRENCY }, async () =>
    (await fetch(`${stack.url}/v1/whoami`, { headers })).status === 200);

  const spends = await runLoad('completed Pix spend through the workflow (hold, dispatch, debit, receipt)', { total: SPENDS, concurrency: CONCURRENCY }, async (i) => {
    const response = await post(pixSpend(consumers[i % CONCURRENCY], { amount_minor: 1_050 }));
    const answer = await response.json() as { status?: string };
    return response.status === 200 && answer.status === 'completed';
  });

  // A settled attempt to replay verbatim.
  const stored = pixSpend(consumers[0], { amount_minor: 1_050 });
  const first = await post(stored);
  if (first.status !== 200) throw new Error(`expected a completed spend, got ${first.status} ${await first.text()}`);
  const replays = await runLoad('idempotent replay of a settled attempt (Postgres only)', { total: REPLAYS, concurrency: CONCURRENCY }, async () => {
    const response = await post(stored);
    await response.arrayBuffer();
    return response.headers.get('idempotent-replayed') === 'true';
  });

  console.log(machineLine());
  console.log(`consumer payments: concurrency ${CONCURRENCY}`);
  console.log(formatResult(whoami));
  console.log(formatResult(spends));
  console.log(formatResult(replays));
  console.log(`replay / whoami throughput ratio: ${(replays.rps / whoami.rps).toFixed(2)}`);
  await stack.stop();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
