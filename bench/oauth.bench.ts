// OAuth figures on the real stack: an authenticated call with an access token (one indexed join per
// request, no cache, so revocations bite at once) against the same call with an API key (cached
// lookup), and against a key-authenticated route that makes one query of its own, all measured in the
// same run; then the full consent-to-token flow and refresh rotation.
import { startBenchStack } from './support/stack';
import { formatResult, machineLine, runLoad } from './support/load';
import { spawnLoad } from './support/spawn-load';
import { approve, connect, exchangeCode, pkce, refresh, registerClient } from '../test/support/oauth-flow';

const CONCURRENCY = 32;
const TOTAL = Number(process.env.BENCH_REQUESTS ?? 20_000);
const FLOWS = Number(process.env.BENCH_OAUTH_FLOWS ?? 1_000);
const FLOW_CONCURRENCY = 8;

async function main(): Promise<void> {
  const stack = await startBenchStack();
  const tenant = await stack.createTenant();
  const { tokens } = await connect(stack, tenant.key, { scope: 'sessions:read' });

  const byKey = await spawnLoad({
    label: 'GET /v1/whoami with an API key',
    url: `${stack.url}/v1/whoami`,
    headers: { Authorization: `Bearer ${tenant.key}` },
    total: TOTAL,
    concurrency: CONCURRENCY,
    warmup: 2_000,
  });
  const oneQuery = await spawnLoad({
    label: 'GET /v1/projects/{id} with an API key',
    url: `${stack.url}/v1/projects/${tenant.projectId}`,
    headers: { Authorization: `Bearer ${tenant.key}` },
    total: TOTAL,
    concurrency: CONCURRENCY,
    warmup: 2_000,
  });
  const byToken = await spawnLoad({
    label: 'GET /v1/whoami with an OAuth token',
    url: `${stack.url}/v1/whoami`,
    headers: { Authorization: `Bearer ${tokens.access_token}` },
    total: TOTAL,
    concurrency: CONCURRENCY,
    warmup: 2_000,
  });

  // Consent form post plus code exchange: two requests, three transactions, per flow.
  const clientId = await registerClient(stack);
  const flows = await runLoad(
    'consent + code exchange (one flow)',
    { total: FLOWS, concurrency: FLOW_CONCURRENCY },
    async () => {
      const pair = pkce();
      const { code } = await approve(stack, { clientId, challenge: pair.challenge, apiKey: tenant.key });
      return (await exchangeCode(stack, { code, clientId, verifier: pair.verifier })).status === 200;
    },
  );

  // Refresh rotation: one chain per worker, each refreshed with its latest token (never two at once,
  // which reuse detection would rightly treat as theft).
  const chains = await Promise.all(
    Array.from(
      { length: FLOW_CONCURRENCY },
      async () => (await connect(stack, tenant.key, { clientId })).tokens.refresh_token,
    ),
  );
  const refreshes = await runLoad(
    'refresh_token grant (rotation)',
    { total: FLOWS, concurrency: FLOW_CONCURRENCY },
    async () => {
      const latest = chains.pop();
      if (!latest) return false;
      const result = await refresh(stack, latest);
      if (result.status !== 200) return false;
      chains.push(result.body.refresh_token as string);
      return true;
    },
  );

  console.log(machineLine());
  console.log(
    `oauth: ${TOTAL} authenticated requests at concurrency ${CONCURRENCY}; ${FLOWS} flows and refreshes at concurrency ${FLOW_CONCURRENCY}`,
  );
  console.log(formatResult(byKey));
  console.log(formatResult(oneQuery));
  console.log(formatResult(byToken));
  console.log(
    `token / key throughput ratio: ${(byToken.rps / byKey.rps).toFixed(2)}; token / one-query route: ${(byToken.rps / oneQuery.rps).toFixed(2)}`,
  );
  console.log(formatResult(flows));
  console.log(formatResult(refreshes));

  await stack.stop();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
