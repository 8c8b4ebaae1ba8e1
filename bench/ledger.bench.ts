// Ledger posts per second through POST /v1/ledger-entries (a test key's funds, the group-committed path): one
// hot wallet (every post contends for the same balance row) and 100 wallets, at concurrency 32; a wallet read
// through the same chain is the baseline.
import { fundedWallets } from './support/wallets';
import { startBenchStack } from './support/stack';
import { formatResult, machineLine } from './support/load';
import { spawnRotating } from './support/spawn-rotating';

const CONCURRENCY = 32;
const TOTAL = Number(process.env.BENCH_REQUESTS ?? 10_000);

async function main(): Promise<void> {
  const stack = await startBenchStack({ poolSize: 40 });
  const tenant = await stack.createTenant();
  const headers = { Authorization: `Bearer ${tenant.key}` };
  const wallets = await fundedWallets(stack, tenant, 100, 'bench');
  const post = (walletId: string) =>
    JSON.stringify({
      wallet_id: walletId,
      org_id: tenant.orgId,
      currency: 'BRL',
      amount_minor: '1',
      // A test key's sandbox top-up: the one kind a key may post (fee and the rest are operator adjustments).
      kind: 'fund',
    });

  const read = await spawnRotating({
    label: 'GET /v1/wallets/:id (baseline read)',
    url: wallets.map((w) => `${stack.url}/v1/wallets/${w}`),
    method: 'GET',
    headers,
    bodies: [''],
    total: TOTAL,
    concurrency: CONCURRENCY,
    warmup: 1_000,
  });
  const hot = await spawnRotating({
    label: 'ledger post, one hot wallet',
    url: `${stack.url}/v1/ledger-entries`,
    method: 'POST',
    headers,
    bodies: [post(wallets[0])],
    total: TOTAL,
    concurrency: CONCURRENCY,
    warmup: 500,
  });
  const spread = await spawnRotating({
    label: 'ledger post, across 100 wallets',
    url: `${stack.url}/v1/ledger-entries`,
    method: 'POST',
    headers,
    bodies: wallets.map(post),
    total: TOTAL,
    concurrency: CONCURRENCY,
    warmup: 500,
  });

  const sums = await stack.db.any((await import('slonik')).sql.unsafe`
    SELECT b.wallet_id, b.balance_minor = COALESCE(sum(e.balance_delta), 0) AS balanced FROM wallet_balances b
    LEFT JOIN wallet_ledger_entries e ON e.wallet_id = b.wallet_id AND e.currency = b.currency GROUP BY b.wallet_id, b.balance_minor`);
  const unbalanced = sums.filter((row) => !row.balanced).length;

  console.log(machineLine());
  console.log(`ledger: ${TOTAL} requests per run at concurrency ${CONCURRENCY}`);
  for (const result of [read, hot, spread]) console.log(formatResult(result));
  console.log(
    `hot / baseline throughput ratio: ${(hot.rps / read.rps).toFixed(2)}; spread / baseline: ${(spread.rps / read.rps).toFixed(2)}`,
  );
  console.log(
    `targets: hot wallet ≥ 500 posts/s (${hot.rps >= 500 ? 'met' : 'missed'}), 100 wallets ≥ 2000 posts/s (${spread.rps >= 2000 ? 'met' : 'missed'})`,
  );
  console.log(
    `invariant after the run: ${unbalanced === 0 ? 'every balance equals the sum of its entries' : `${unbalanced} wallets UNBALANCED`}`,
  );
  await stack.stop();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
