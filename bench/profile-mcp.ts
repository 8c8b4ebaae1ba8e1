// Diagnostic (not a benchmark): where a read tool call through `/v1/sessions/{id}/mcp` spends its time.
// Lists the PostgreSQL statements of one call, then profiles this process (API, worker and mocks) while
// SDK clients in a child process call the tool at concurrency 32, one session each.
//   npx tsx bench/profile-mcp.ts            REQUESTS=3000 by default
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { API_KEY_SANDBOX } from '../providers/mocks/auth-api-key';
import { startBenchStack } from './support/stack';
import { formatResult, type LoadResult } from './support/load';
import { costed, costLine } from './support/cpu';
import { startBareMcpProxy } from './support/bare-mcp-proxy';
import { catalogServer } from '../domain/providers/catalog';
import { profiled, summarise } from './support/cpu-profile';
import { statementsSent } from '../test/support/pg-statements';

const CONCURRENCY = 32;

function calls(
  urls: string[],
  key: string,
  total: number,
  label: string,
  tool?: string,
): Promise<LoadResult> {
  const job = { urls, key, mode: 'call', tool, total, concurrency: CONCURRENCY, label };
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [require.resolve('tsx/cli'), path.join(__dirname, 'mcp.bench.ts'), JSON.stringify(job)],
      { maxBuffer: 1 << 20 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`${error.message}\n${stderr}`));
        resolve(JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as LoadResult);
      },
    );
  });
}

async function main(): Promise<void> {
  const stack = await startBenchStack();
  const tenant = await stack.createTenant();
  const connected = await stack.request('POST', '/v1/providers/pix-psp/connections', {
    key: tenant.key,
    body: { credentials: API_KEY_SANDBOX },
  });
  if (connected.status !== 201) throw new Error(connected.text);
  await stack.request('PATCH', `/v1/projects/${tenant.projectId}/settings`, {
    key: tenant.key,
    body: { session_tool_calls_per_minute: 100_000 },
  });
  const sessions = await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      const r = await stack.request('POST', '/v1/sessions', {
        key: tenant.key,
        body: { servers: ['pix-psp'] },
      });
      if (r.status !== 201) throw new Error(r.text);
      return { id: r.body.id as string, url: `${stack.url}/v1/sessions/${r.body.id}/mcp` };
    }),
  );
  await calls([sessions[0].url], tenant.key, 50, 'warm');
  const rest = await statementsSent(() =>
    stack.request('POST', `/v1/sessions/${sessions[0].id}/tool-calls`, {
      key: tenant.key,
      body: { tool: 'pix-psp.pix_key_lookup', arguments: { pix_key: 'ana@example.com' } },
    }),
  );
  console.log(
    `one REST tool call: ${rest.length} PostgreSQL round trips${rest.map((s) => `\n  ${s.replace(/\s+/g, ' ').trim().slice(0, 140)}`).join('')}`,
  );

  // CPU per call without the profiler: this process and PostgreSQL, beside the bare proxy's for the same tool.
  const bareProxy = await startBareMcpProxy({
    name: 'pix_key_lookup',
    inputSchema: catalogServer('pix-psp')!.tools.find((t) => t.name === 'pix_key_lookup')!.input_schema,
    upstream: `${stack.config.providerUrls.auth_api_key}/tools/pix_key_lookup`,
    headers: { 'x-api-key': API_KEY_SANDBOX.api_key, 'content-type': 'application/json' },
  });
  const bare = await costed(stack, () =>
    calls(Array(CONCURRENCY).fill(bareProxy.url), tenant.key, 2_000, 'bare MCP proxy', 'pix_key_lookup'),
  );
  await bareProxy.close();
  const gateway = await costed(stack, () =>
    calls(
      sessions.map((s) => s.url),
      tenant.key,
      2_000,
      `MCP tools/call, ${CONCURRENCY} sessions`,
    ),
  );
  for (const r of [bare, gateway]) console.log(`${formatResult(r)}\n  ${costLine(r)}`);
  console.log(`  ${(gateway.rps / bare.rps).toFixed(2)}x the bare proxy's throughput`);
  if (process.env.PROFILE === 'off') return stack.stop();

  const before = process.cpuUsage();
  const total = Number(process.env.REQUESTS ?? 3_000);
  const [result, profile] = await profiled(() =>
    calls(
      sessions.map((s) => s.url),
      tenant.key,
      total,
      `MCP tools/call, ${CONCURRENCY} sessions`,
    ),
  );
  const cpu = process.cpuUsage(before);
  if (process.env.PROFILE_OUT) writeFileSync(process.env.PROFILE_OUT, JSON.stringify(profile));
  console.log(
    `${formatResult(result)}   process CPU ${((cpu.user + cpu.system) / (total + 500)).toFixed(0)} µs/call (profiler on)`,
  );
  summarise(profile);
  await stack.stop();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
