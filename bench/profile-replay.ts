// Diagnostic (not a benchmark): where a consumer-payment replay spends its time. Lists the PostgreSQL
// statements of one cold and one warm replay, then profiles the API process (node:inspector CPU profile,
// self time by file and by function) while a child process sends load at concurrency 16.
//   npx tsx bench/profile-replay.ts                    warm replays of one settled attempt
//   PROFILE=cold SPENDS=400 npx tsx bench/profile-replay.ts   each of SPENDS settled attempts replayed once
//   PROFILE=whoami npx tsx bench/profile-replay.ts     GET /v1/whoami, for comparison
import { Session } from 'node:inspector/promises';
import { Client } from 'pg';
import { startBenchStack } from './support/stack';
import { summarise, type Profile } from './support/cpu-profile';
import { formatResult, type LoadResult } from './support/load';
import { spawnLoad } from './support/spawn-load';
import { spawnRotating } from './support/spawn-rotating';
import { pixSpend, readyConsumer } from '../test/support/consumer-spend';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** The statements sent to PostgreSQL while `action` runs. */
async function statementsOf(action: () => Promise<unknown>): Promise<string[]> {
  const original = Client.prototype.query;
  const seen: string[] = [];
  Client.prototype.query = function (this: Client, ...args: unknown[]) {
    const text =
      typeof args[0] === 'string' ? args[0] : ((args[0] as { text?: string } | undefined)?.text ?? '?');
    seen.push(text.replace(/\s+/g, ' ').trim().slice(0, 120));
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  try {
    await action();
  } finally {
    Client.prototype.query = original;
  }
  return seen;
}

/** Profiles this process while `load` runs; prints self time by file and by function. */
async function profileWhile(load: () => Promise<LoadResult>): Promise<void> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  const before = process.cpuUsage();
  const result = await load();
  const cpu = process.cpuUsage(before);
  const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile };
  session.disconnect();
  console.log(
    `${formatResult(result)}   process CPU ${((cpu.user + cpu.system) / result.requests).toFixed(0)} µs/req (profiler on)`,
  );
  summarise(profile, 25, 35);
}

async function main(): Promise<void> {
  const mode = process.env.PROFILE ?? 'warm';
  const stack = await startBenchStack();
  const tenant = await stack.createTenant();
  const headers = { Authorization: `Bearer ${tenant.key}`, 'Content-Type': 'application/json' };
  const url = `${stack.url}/v1/consumer-payments/execute`;
  const consumers = await Promise.all(
    Array.from({ length: 16 }, () =>
      readyConsumer(stack, tenant, {
        fundMinor: 1_000_000_000,
        intent: { cap_minor: 1_000_000_000, per_tx_cap_minor: 10_000 },
      }),
    ),
  );
  const stored = pixSpend(consumers[0], { amount_minor: 1_050 });
  const execute = () =>
    stack.request('POST', '/v1/consumer-payments/execute', { key: tenant.key, body: stored });
  if ((await execute()).status !== 200) throw new Error('the spend to replay did not complete');
  for (const [label, action] of [
    ['cold replay', execute],
    ['warm replay', execute],
  ] as const) {
    const statements = await statementsOf(action);
    console.log(
      `${label}: ${statements.length} PostgreSQL round trips${statements.map((s) => `\n  ${s}`).join('')}`,
    );
  }

  if (mode === 'cold') {
    const count = Number(process.env.SPENDS ?? 400);
    const bodies = Array.from({ length: count }, (_, i) =>
      JSON.stringify(pixSpend(consumers[i % 16], { amount_minor: 1_050 })),
    );
    console.log(
      formatResult(
        await spawnRotating({
          label: 'spends',
          url,
          method: 'POST',
          headers,
          bodies,
          total: count,
          concurrency: 16,
        }),
      ),
    );
    await profileWhile(() =>
      spawnRotating({
        label: 'replay, each settled attempt once (cold)',
        url,
        method: 'POST',
        headers,
        bodies,
        total: count,
        concurrency: 16,
      }),
    );
  } else {
    const target =
      mode === 'whoami'
        ? { label: 'GET /v1/whoami', url: `${stack.url}/v1/whoami` }
        : {
            label: 'replay of one settled attempt (warm)',
            url,
            method: 'POST',
            body: JSON.stringify(stored),
          };
    const total = Number(process.env.REQUESTS ?? 4_000);
    await spawnLoad({ ...target, label: 'warmup', headers, total: 500, concurrency: 16 });
    await profileWhile(() => spawnLoad({ ...target, headers, total, concurrency: 16 }));
  }
  await stack.stop();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
