// Consumer payments on a real stack (temporal server start-dev, real worker, embedded PostgreSQL, mock
// PSP): spend attempts through the workflow at concurrency 16, and the idempotent replay of a stored
// answer (served from Postgres, no Temporal), with GET /v1/whoami in the same run as the baseline.
// While the mandates area is not wired into this build, each attempt runs the route checks, starts its
// workflow, looks the key up in DICT and stops at the mandate step (501 not_wired); the figure is
// labelled as such. Rerun after the merge for the full hold / dispatch / debit / receipt path.
import { randomBytes } from 'node:crypto';
import { startBenchStack } from './support/stack';
import { formatResult, machineLine, runLoad } from './support/load';

const CONCURRENCY = 16;
const SPENDS = Number(process.env.BENCH_SPENDS ?? 400);
const REPLAYS = Number(process.env.BENCH_REPLAYS ?? 4_000);

async function main(): Promise<void> {
  const stack = await startBenchStack();
  const tenant = await stack.createTenant();
  const headers = { Authorization: `Bearer ${tenant.key}`, 'Content-Type': 'application/json' };
  const body = (attemptId: string, payee = '+5511987654321') => JSON.stringify({
    signature: 'a'.repeat(64), agent_id: 'agent_1', amount_minor: 1050, payee, purpose: 'groceries', attempt_id: attemptId,
    mandate: { id: 'mdt_bench', nonce: 'n', agent_id: 'agent_1' },
  });
  const post = (payload: string) => fetch(`${stack.url}/v1/consumer-payments/execute`, { method: 'POST', headers, body: payload });

  const whoami = await runLoad('GET /v1/whoami (baseline)', { total: REPLAYS, concurrency: CONCURRENCY }, async () =>
    (await fetch(`${stack.url}/v1/whoami`, { headers })).status === 200);

  const run = randomBytes(4).toString('hex');
  const spends = await runLoad('spend attempt through the workflow (to the mandate step)', { total: SPENDS, concurrency: CONCURRENCY }, async (i) => {
    const response = await post(body(`bench-${run}-${i}`));
    await response.arrayBuffer();
    return response.status === 501;
  });

  // A stored answer to replay: a DICT refusal is stored exactly like a settled outcome.
  (stack.mocks.pix_psp as unknown as { removeKey(key: string): void }).removeKey('bench-ghost@example.com');
  const stored = body(`bench-${run}-stored`, 'bench-ghost@example.com');
  const first = await post(stored);
  if (first.status !== 422) throw new Error(`expected a stored 422, got ${first.status}`);
  const replays = await runLoad('idempotent replay (stored answer, Postgres only)', { total: REPLAYS, concurrency: CONCURRENCY }, async () => {
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
