// Diagnostic (not a benchmark): where the API and the worker (one process here, as in the attempt-engine
// bench) spend their CPU on wallet executes at concurrency 16, each a new attempt: the CPU per attempt,
// then self time by file and by function (node:inspector CPU profile).
//   ATTEMPTS=400 npx tsx bench/profile-attempt.ts
import { startBenchStack } from './support/stack';
import { profiled, summarise } from './support/cpu-profile';
import { formatResult } from './support/load';
import { spawnRotating } from './support/spawn-rotating';
import { executeBodies, fundedWallets } from './support/wallets';

const CONCURRENCY = 16;

async function main(): Promise<void> {
  const total = Number(process.env.ATTEMPTS ?? 400);
  const stack = await startBenchStack({ poolSize: 40 });
  const tenant = await stack.createTenant();
  const wallets = await fundedWallets(stack, tenant, CONCURRENCY, 'profile');
  const executes = (prefix: string, count: number) =>
    spawnRotating({
      label: `wallet execute, c=${CONCURRENCY}`,
      url: wallets.map((w) => `${stack.url}/v1/wallets/${w}/execute`),
      method: 'POST',
      headers: { Authorization: `Bearer ${tenant.key}`, 'Content-Type': 'application/json' },
      bodies: executeBodies(prefix, count),
      total: count,
      concurrency: CONCURRENCY,
    });
  await executes('warm', 100);
  const before = process.cpuUsage();
  const [result, profile] = await profiled(() => executes('profiled', total));
  const cpu = process.cpuUsage(before);
  console.log(
    `${formatResult(result)}   process CPU ${((cpu.user + cpu.system) / 1000 / result.requests).toFixed(1)} ms/attempt (profiler on)`,
  );
  summarise(profile, 30, 40);
  await stack.stop();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
