// Diagnostic (not a benchmark): where a keyed request spends its time. Profiles this process (the API)
// while a child process sends `GET /v1/whoami` with a valid key at concurrency 32, as `-- platform` does.
//   npx tsx bench/profile-platform.ts       REQUESTS=10000 by default
import { startBenchStack } from './support/stack';
import { formatResult } from './support/load';
import { profiled, summarise } from './support/cpu-profile';
import { spawnLoad } from './support/spawn-load';

async function main(): Promise<void> {
  const stack = await startBenchStack();
  const tenant = await stack.createTenant();
  const total = Number(process.env.REQUESTS ?? 10_000);
  const before = process.cpuUsage();
  const [result, profile] = await profiled(() =>
    spawnLoad({
      label: 'GET /v1/whoami (key auth, full chain)',
      url: `${stack.url}/v1/whoami`,
      headers: { Authorization: `Bearer ${tenant.key}` },
      total,
      concurrency: 32,
      warmup: 2_000,
    }),
  );
  const cpu = process.cpuUsage(before);
  console.log(
    `${formatResult(result)}   process CPU ${((cpu.user + cpu.system) / (total + 2_000)).toFixed(0)} µs/request (profiler on)`,
  );
  summarise(profile);
  await stack.stop();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
