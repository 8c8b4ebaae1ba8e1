// GET /v1/whoami with a valid key through the whole middleware chain, against a bare Koa handler
// measured in the same run: the ratio is the figure. 32 concurrent keep-alive connections on loopback.
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { startBenchStack } from './support/stack';
import { formatResult, machineLine } from './support/load';
import { spawnLoad } from './support/spawn-load';
import { formatInterleaved, interleaved, throughputRatio } from './support/interleave';

const CONCURRENCY = 32;
const TOTAL = Number(process.env.BENCH_REQUESTS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

async function main(): Promise<void> {
  const stack = await startBenchStack();
  const tenant = await stack.createTenant();

  const bare = new Koa();
  bare.use((ctx) => {
    ctx.body = {
      key: { id: 'key_x', environment: 'test', scopes: ['*'] },
      organization: { id: 'org_x' },
      project: { id: 'prj_x' },
    };
  });
  const bareServer = bare.listen(0, '127.0.0.1');
  await new Promise((resolve) => bareServer.once('listening', resolve));
  // The gateway's listener settings (api/server.ts, bench/support/stack.ts).
  bareServer.keepAliveTimeout = 65_000;
  const bareUrl = `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}/`;

  const baseline = await spawnLoad({
    label: 'bare Koa handler',
    url: bareUrl,
    total: TOTAL,
    concurrency: CONCURRENCY,
    warmup: 2_000,
  });
  const whoami = await spawnLoad({
    label: 'GET /v1/whoami (key auth, full chain)',
    url: `${stack.url}/v1/whoami`,
    headers: { Authorization: `Bearer ${tenant.key}` },
    total: TOTAL,
    concurrency: CONCURRENCY,
    warmup: 2_000,
  });
  // The same pair again in alternating rounds: the figure to trust on a shared machine.
  const perRound = Math.max(1_000, Math.round(TOTAL / ROUNDS));
  const rounds = await interleaved(
    'whoami / bare throughput',
    ROUNDS,
    () =>
      spawnLoad({
        label: 'whoami',
        url: `${stack.url}/v1/whoami`,
        headers: { Authorization: `Bearer ${tenant.key}` },
        total: perRound,
        concurrency: CONCURRENCY,
        warmup: 500,
      }),
    () => spawnLoad({ label: 'bare', url: bareUrl, total: perRound, concurrency: CONCURRENCY, warmup: 500 }),
    throughputRatio,
  );

  console.log(machineLine());
  console.log(`platform: ${TOTAL} requests at concurrency ${CONCURRENCY}`);
  console.log(formatResult(baseline));
  console.log(formatResult(whoami));
  console.log(`whoami / bare throughput ratio: ${(whoami.rps / baseline.rps).toFixed(2)}`);
  console.log(formatInterleaved(rounds, '0.6x'));

  bareServer.close();
  await stack.stop();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
