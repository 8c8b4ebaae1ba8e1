// Diagnostic (not a benchmark): where a keyed request spends its time. Profiles this process (the API)
// while a child process sends `GET /v1/whoami` with a valid key at concurrency 32, as `-- platform` does.
//   npx tsx bench/profile-platform.ts       REQUESTS=10000 by default; PROFILE=off for CPU per request alone
import { startBenchStack } from './support/stack';
import { formatResult } from './support/load';
import { profiled, summarise } from './support/cpu-profile';
import { spawnLoad } from './support/spawn-load';

async function main(): Promise<void> {
  const stack = await startBenchStack();
  const tenant = await stack.createTenant();
  const total = Number(process.env.REQUESTS ?? 10_000);
  const load = () =>
    spawnLoad({
      label: 'GET /v1/whoami (key auth, full chain)',
      url: `${stack.url}/v1/whoami`,
      headers: { Authorization: `Bearer ${tenant.key}` },
      total,
      concurrency: 32,
      warmup: 2_000,
    });
  const before = process.cpuUsage();
  // CPU per request is steadier than throughput on a shared machine: PROFILE=off prints it unprofiled.
  const off = process.env.PROFILE === 'off';
  const [result, profile] = off ? [await load(), undefined] : await profiled(load);
  const cpu = process.cpuUsage(before);
  console.log(
    `${formatResult(result)}   process CPU ${((cpu.user + cpu.system) / (total + 2_000)).toFixed(0)} µs/request${off ? '' : ' (profiler on)'}`,
  );
  if (profile) summarise(profile);
  await stack.stop();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
