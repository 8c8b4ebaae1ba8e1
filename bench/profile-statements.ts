// Diagnostic (not a benchmark): the SQL statements the API and the worker send for one new attempt of
// each money family that settles on the happy path (wallet execute, consumer Pix spend), after a warmup,
// one line per statement, so a change can see which round trips an attempt makes.
//   npx tsx bench/profile-statements.ts
import { statementsSent } from '../test/support/pg-statements';
import { startBenchStack } from './support/stack';
import { executeBodies, fundedWallets } from './support/wallets';
import { pixSpend, readyConsumer } from '../test/support/consumer-spend';

const WIDTH = Number(process.env.WIDTH ?? 220);

function print(family: string, statements: string[]): void {
  console.log(`\n${family}: ${statements.length} statements`);
  statements.forEach((s, i) =>
    console.log(`${String(i + 1).padStart(3)} ${s.replace(/\s+/g, ' ').trim().slice(0, WIDTH)}`),
  );
}

async function main(): Promise<void> {
  const stack = await startBenchStack();
  const tenant = await stack.createTenant();
  const [wallet] = await fundedWallets(stack, tenant, 1, 'statements');
  const execute = (body: string) =>
    stack.request('POST', `/v1/wallets/${wallet}/execute`, { key: tenant.key, body: JSON.parse(body) });
  const [warm, measured] = executeBodies('statements', 2);
  await execute(warm);
  let status = 0;
  print('wallet execute', await statementsSent(async () => ({ status } = await execute(measured))));
  if (status !== 200) throw new Error(`wallet execute answered ${status}`);

  const consumer = await readyConsumer(stack, tenant, {
    fundMinor: 1_000_000,
    intent: { cap_minor: 1_000_000, per_tx_cap_minor: 10_000 },
  });
  const spend = () =>
    stack.request('POST', '/v1/consumer-payments/execute', {
      key: tenant.key,
      body: pixSpend(consumer, { amount_minor: 1_050 }),
    });
  await spend();
  print('consumer Pix spend', await statementsSent(async () => ({ status } = await spend())));
  if (status !== 200) throw new Error(`consumer Pix spend answered ${status}`);
  await stack.stop();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
