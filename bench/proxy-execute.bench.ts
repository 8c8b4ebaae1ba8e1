// proxy_execute's overhead on the real stack: one injected upstream call (POST to the api_key mock,
// the vault credential opened and injected by the gateway) against the same call sent straight to the
// mock with the key in hand, both measured in the same run; the gap is the gateway's overhead
// (issue target: p50 under 2 ms). Sequential calls show it bare; concurrency 32 shows it under load; an
// authenticated one-query read of the same run is the API's floor, with no upstream at all.
import { API_KEY_SANDBOX } from '../providers/mocks/auth-api-key';
import { startBenchStack } from './support/stack';
import { formatResult, machineLine, type LoadResult } from './support/load';
import { spawnLoad } from './support/spawn-load';

const TOTAL = Number(process.env.BENCH_REQUESTS ?? 5_000);
const CONCURRENCIES = [1, 32];
const CHARGE = JSON.stringify({ amount_minor: '990', description: 'bench' });

const overhead = (proxied: LoadResult, direct: LoadResult) =>
  `overhead p50 ${(proxied.p50 - direct.p50).toFixed(2)} ms, p99 ${(proxied.p99 - direct.p99).toFixed(2)} ms`;

async function main(): Promise<void> {
  const stack = await startBenchStack();
  const tenant = await stack.createTenant();
  const connected = await stack.request('POST', '/v1/providers/pix-psp/connections', {
    key: tenant.key,
    body: { credentials: API_KEY_SANDBOX },
  });
  if (connected.status !== 201) throw new Error(connected.text);
  const opened = await stack.request('POST', '/v1/sessions', {
    key: tenant.key,
    body: { servers: ['pix-psp'] },
  });
  if (opened.status !== 201) throw new Error(opened.text);
  const mockUrl = stack.config.providerUrls.auth_api_key;

  // One proxied call checked end to end before timing: the mock must have accepted the injected key.
  const probe = await stack.request('POST', `/v1/sessions/${opened.body.id}/proxy_execute`, {
    key: tenant.key,
    body: { server_id: 'pix-psp', method: 'POST', path: '/charges', body: JSON.parse(CHARGE) },
  });
  if (probe.status !== 200 || probe.body.status !== 200) throw new Error(`proxy probe failed: ${probe.text}`);

  // The API's own floor in the same run: an authenticated one-query read, no upstream at all.
  const floor = await spawnLoad({
    label: 'GET /v1/sessions/{id} (c=1, no upstream)',
    url: `${stack.url}/v1/sessions/${opened.body.id}`,
    headers: { Authorization: `Bearer ${tenant.key}` },
    total: Math.ceil(TOTAL / 2),
    concurrency: 1,
    warmup: 500,
  });
  const lines: string[] = [formatResult(floor)];
  for (const concurrency of CONCURRENCIES) {
    const total = concurrency === 1 ? Math.ceil(TOTAL / 2) : TOTAL;
    const direct = await spawnLoad({
      label: `direct POST /charges (c=${concurrency})`,
      url: `${mockUrl}/charges`,
      method: 'POST',
      headers: { 'x-api-key': API_KEY_SANDBOX.api_key, 'content-type': 'application/json' },
      body: CHARGE,
      total,
      concurrency,
      warmup: 500,
    });
    const proxied = await spawnLoad({
      label: `proxy_execute POST /charges (c=${concurrency})`,
      url: `${stack.url}/v1/sessions/${opened.body.id}/proxy_execute`,
      method: 'POST',
      headers: { Authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        server_id: 'pix-psp',
        method: 'POST',
        path: '/charges',
        body: JSON.parse(CHARGE),
      }),
      total,
      concurrency,
      warmup: 500,
    });
    lines.push(formatResult(direct), formatResult(proxied), `  ${overhead(proxied, direct)}`);
  }

  console.log(machineLine());
  console.log(
    `proxy_execute: ${TOTAL} calls at concurrency 32 (half as many one at a time), the mock on loopback`,
  );
  for (const line of lines) console.log(line);
  await stack.stop();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
