// The hosted MCP endpoint on the real stack, with the SDK's own Client over a real port (run in a child
// process, so the client does not share the gateway's event loop): a non-paying provider tool called
// through MCP beside the same call sent straight to the mock and through a bare pass-through MCP proxy
// built with the same SDK, at concurrency 32, same run (target: the gateway at 0.6x the bare proxy's
// throughput or better), with the PostgreSQL round trips each call costs; and tools/list for a session with
// 200 tools beside the SDK client's own floor for the same answer (target: 1.3x or under). Every call goes
// the whole tool-call path: session, limits, schema, policy, vault, record, event.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
// First, before anything loads the tool registry (which builds the catalog's tool specs once):
import './support/two-hundred-tools';
import { API_KEY_SANDBOX } from '../providers/mocks/auth-api-key';
import { startBenchStack } from './support/stack';
import { formatResult, machineLine, runLoad, type LoadResult } from './support/load';
import { spawnLoad } from './support/spawn-load';
import { startRecordingProxy } from './support/recording-proxy';
import { startBareMcpProxy } from './support/bare-mcp-proxy';
import { roundTrips } from './support/round-trips';
import { formatInterleaved, interleaved, latencyRatio, throughputRatio } from './support/interleave';
import { catalogServer } from '../domain/providers/catalog';

const CONCURRENCY = 32;
const TOTAL = Number(process.env.BENCH_REQUESTS ?? 5_000);
const LISTS = Number(process.env.BENCH_TOOL_LISTS ?? 500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const LOOKUP = { pix_key: 'ana@example.com' };

interface ChildJob {
  urls: string[];
  key: string;
  mode: 'call' | 'list';
  tool?: string;
  total: number;
  concurrency: number;
  label: string;
}

/** The child: one SDK client on the current (stateless) protocol, driving calls or lists in lanes. */
async function child(job: ChildJob): Promise<void> {
  // One client per session URL; lane i drives client i modulo their number.
  const clients = await Promise.all(
    job.urls.map(async (url) => {
      const client = new Client(
        { name: 'gateway-bench', version: '1.0.0' },
        { versionNegotiation: { mode: 'auto' } },
      );
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { Authorization: `Bearer ${job.key}` } },
        }),
      );
      return client;
    }),
  );
  const once =
    job.mode === 'call'
      ? async (_: number, lane: number) =>
          !(
            await clients[lane % clients.length].callTool({
              name: job.tool ?? 'pix-psp.pix_key_lookup',
              arguments: LOOKUP,
            })
          ).isError
      : async (_: number, lane: number) =>
          (await clients[lane % clients.length].listTools()).tools.length === 200;
  await runLoad('warmup', { total: Math.min(500, job.total), concurrency: job.concurrency }, once);
  const result = await runLoad(job.label, { total: job.total, concurrency: job.concurrency }, once);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  await Promise.all(clients.map((client) => client.close()));
}

function spawnChild(job: ChildJob): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [require.resolve('tsx/cli'), __filename, JSON.stringify(job)],
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
  // The default per-session minute limit (600) would refuse most of the run.
  const limits = await stack.request('PATCH', `/v1/projects/${tenant.projectId}/settings`, {
    key: tenant.key,
    body: { session_tool_calls_per_minute: 100_000 },
  });
  if (limits.status !== 200) throw new Error(limits.text);
  const open = async (servers: string[]) => {
    const r = await stack.request('POST', '/v1/sessions', { key: tenant.key, body: { servers } });
    if (r.status !== 201) throw new Error(r.text);
    return `${stack.url}/v1/sessions/${r.body.id}/mcp`;
  };
  const callSession = await open(['pix-psp']);
  const agentSessions = await Promise.all(Array.from({ length: CONCURRENCY }, () => open(['pix-psp'])));
  const listSession = await open(['postal-codes']);

  const direct = await spawnLoad({
    label: `direct POST /tools/pix_key_lookup (c=${CONCURRENCY})`,
    url: `${stack.config.providerUrls.auth_api_key}/tools/pix_key_lookup`,
    method: 'POST',
    headers: { 'x-api-key': API_KEY_SANDBOX.api_key, 'content-type': 'application/json' },
    body: JSON.stringify(LOOKUP),
    total: TOTAL,
    concurrency: CONCURRENCY,
    warmup: 500,
  });
  // The lightest authenticated route at the same concurrency: what any keyed request costs here under load.
  const whoami = await spawnLoad({
    label: `GET /v1/whoami (c=${CONCURRENCY}, baseline)`,
    url: `${stack.url}/v1/whoami`,
    headers: { Authorization: `Bearer ${tenant.key}` },
    total: TOTAL,
    concurrency: CONCURRENCY,
    warmup: 500,
  });
  // The same tool, forwarded to the same upstream with the same credential by a proxy that does nothing else.
  const bareProxy = await startBareMcpProxy({
    name: 'pix_key_lookup',
    inputSchema: catalogServer('pix-psp')!.tools.find((t) => t.name === 'pix_key_lookup')!.input_schema,
    upstream: `${stack.config.providerUrls.auth_api_key}/tools/pix_key_lookup`,
    headers: { 'x-api-key': API_KEY_SANDBOX.api_key, 'content-type': 'application/json' },
  });
  const bare = await spawnChild({
    urls: [bareProxy.url],
    key: tenant.key,
    mode: 'call',
    tool: 'pix_key_lookup',
    total: TOTAL,
    concurrency: CONCURRENCY,
    label: `bare MCP proxy tools/call, one client (c=${CONCURRENCY})`,
  });
  // As many clients (and connections) as the 32-session run below drives, so each gateway figure has its like.
  const bareClients = await spawnChild({
    urls: Array.from({ length: CONCURRENCY }, () => bareProxy.url),
    key: tenant.key,
    mode: 'call',
    tool: 'pix_key_lookup',
    total: TOTAL,
    concurrency: CONCURRENCY,
    label: `bare MCP proxy tools/call, ${CONCURRENCY} clients (c=${CONCURRENCY})`,
  });
  const trips0 = roundTrips();
  const viaMcp = await spawnChild({
    urls: [callSession],
    key: tenant.key,
    mode: 'call',
    total: TOTAL,
    concurrency: CONCURRENCY,
    label: `MCP tools/call, one session (c=${CONCURRENCY})`,
  });
  const tripsOne = (roundTrips() - trips0) / (TOTAL + Math.min(500, TOTAL));
  // Policies serialize one agent's calls (a session is one agent), so 32 agents are measured apart.
  const trips1 = roundTrips();
  const viaMcpAgents = await spawnChild({
    urls: agentSessions,
    key: tenant.key,
    mode: 'call',
    total: TOTAL,
    concurrency: CONCURRENCY,
    label: `MCP tools/call, ${CONCURRENCY} sessions (c=${CONCURRENCY})`,
  });
  const tripsAgents = (roundTrips() - trips1) / (TOTAL + Math.min(500, TOTAL));
  const lists = await spawnChild({
    urls: [listSession],
    key: tenant.key,
    mode: 'list',
    total: LISTS,
    concurrency: 1,
    label: 'MCP tools/list, 200 tools (c=1)',
  });
  // The client's own floor: the same answers, recorded once, served by a server that does nothing else.
  const proxy = await startRecordingProxy(listSession);
  await spawnChild({
    urls: [proxy.url],
    key: tenant.key,
    mode: 'list',
    total: 5,
    concurrency: 1,
    label: 'record',
  });
  proxy.replay();
  const listFloor = await spawnChild({
    urls: [proxy.url],
    key: tenant.key,
    mode: 'list',
    total: LISTS,
    concurrency: 1,
    label: 'the same tools/list bytes from a bare server (c=1)',
  });

  // The same pairs again in alternating rounds: the figures to trust on a shared machine.
  const callsPerRound = Math.max(500, Math.round(TOTAL / ROUNDS));
  const callJob = (urls: string[], tool?: string): ChildJob => ({
    urls,
    key: tenant.key,
    mode: 'call',
    tool,
    total: callsPerRound,
    concurrency: CONCURRENCY,
    label: 'round',
  });
  const callRounds = await interleaved(
    `MCP tools/call, ${CONCURRENCY} sessions / bare proxy, ${CONCURRENCY} clients, throughput`,
    ROUNDS,
    () => spawnChild(callJob(agentSessions)),
    () =>
      spawnChild(
        callJob(
          Array.from({ length: CONCURRENCY }, () => bareProxy.url),
          'pix_key_lookup',
        ),
      ),
    throughputRatio,
  );
  const listsPerRound = Math.max(50, Math.round(LISTS / ROUNDS));
  const listJob = (url: string): ChildJob => ({
    urls: [url],
    key: tenant.key,
    mode: 'list',
    total: listsPerRound,
    concurrency: 1,
    label: 'round',
  });
  const listRounds = await interleaved(
    'MCP tools/list, 200 tools / the SDK floor, p50',
    ROUNDS,
    () => spawnChild(listJob(listSession)),
    () => spawnChild(listJob(proxy.url)),
    latencyRatio,
  );
  await bareProxy.close();
  await proxy.close();

  console.log(machineLine());
  console.log(
    `mcp: ${TOTAL} tool calls at concurrency ${CONCURRENCY} (current protocol), ${LISTS} tools/list one at a time`,
  );
  console.log(formatResult(direct));
  console.log(formatResult(whoami));
  console.log(
    `  a keyed request with no upstream and no write already takes p50 ${whoami.p50.toFixed(2)} ms here, ${(whoami.p50 - direct.p50).toFixed(2)} ms over the direct call`,
  );
  console.log(formatResult(bare));
  console.log(formatResult(bareClients));
  console.log(formatResult(viaMcp));
  console.log(
    `  overhead p50 ${(viaMcp.p50 - direct.p50).toFixed(2)} ms, p99 ${(viaMcp.p99 - direct.p99).toFixed(2)} ms; ${(viaMcp.rps / bare.rps).toFixed(2)}x the bare proxy's throughput with one client (target 0.6x); ${tripsOne.toFixed(1)} PostgreSQL round trips per call`,
  );
  console.log(formatResult(viaMcpAgents));
  console.log(
    `  overhead p50 ${(viaMcpAgents.p50 - direct.p50).toFixed(2)} ms, p99 ${(viaMcpAgents.p99 - direct.p99).toFixed(2)} ms; ${(viaMcpAgents.rps / bareClients.rps).toFixed(2)}x the bare proxy's throughput with as many clients (target 0.6x); ${tripsAgents.toFixed(1)} PostgreSQL round trips per call`,
  );
  console.log(formatResult(lists));
  console.log(formatResult(listFloor));
  console.log(
    `  the SDK client alone spends p50 ${listFloor.p50.toFixed(2)} ms on a 200-tool answer; the gateway adds ${(lists.p50 - listFloor.p50).toFixed(2)} ms, ${(lists.p50 / listFloor.p50).toFixed(2)}x the floor (target 1.3x)`,
  );
  console.log(formatInterleaved(callRounds, '0.6x'));
  console.log(formatInterleaved(listRounds, '1.3x or under'));
  await stack.stop();
}

if (process.argv[2]) {
  child(JSON.parse(process.argv[2]) as ChildJob).catch((error) => {
    console.error(error);
    process.exit(1);
  });
} else {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
