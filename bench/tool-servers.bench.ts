// Paid tenant tool calls on the real stack: a priced tool of a tenant's upstream MCP server (the mock, official
// server SDK on loopback) called through `POST /v1/sessions/{id}/tool-calls` (policy, hold, the engine's attempt
// workflow, upstream tools/call over MCP, debit with the tenant share and platform fee) beside the same upstream
// call made directly by an MCP client, one at a time (the overhead); then paid calls/s at concurrency 16 (16
// agents, 16 wallets) beside the Temporal empty-workflow floor measured on the same server in the same run
// (issue target: at least 0.9 of the floor).
import { Client as McpClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { NativeConnection, Worker, bundleWorkflowCode } from '@temporalio/worker';
import os from 'node:os';
import { sql } from 'slonik';
import { z } from 'zod';
import { MCP_UPSTREAM_AUTH } from '../providers/mocks/mcp-upstream';
import { quietLogger } from '../worker/bundle';
import { formatResult, machineLine, runLoad } from './support/load';
import { spawnRotating } from './support/spawn-rotating';
import { costed, costLine, type Costed } from './support/cpu';
import { startBenchStack } from './support/stack';

const CONCURRENCY = 16;
const TOTAL = Number(process.env.BENCH_PAID_CALLS ?? 400);
const SINGLE = Number(process.env.BENCH_PAID_SINGLE ?? 100);
const ARGS = { from: 'SP', to: 'RJ' };

async function main(): Promise<void> {
  const stack = await startBenchStack({ poolSize: 40 });
  const upstreamUrl = stack.config.providerUrls.mcp_upstream;
  const tenant = await stack.createTenant();
  const created = await stack.request('POST', '/v1/mcp-servers', {
    key: tenant.key,
    body: {
      slug: 'bench-freight',
      name: 'Bench freight',
      upstream_url: upstreamUrl,
      upstream_auth: MCP_UPSTREAM_AUTH,
      platform_fee_bps: 1500,
      tools: [{ tool_name: 'quote', price: '0.01' }],
    },
  });
  if (created.status !== 201) throw new Error(created.text);
  const caller = await stack.createTenant();
  const limits = await stack.request('PATCH', `/v1/projects/${caller.projectId}/settings`, {
    key: caller.key,
    body: { session_tool_calls_per_minute: 100_000 },
  });
  if (limits.status !== 200) throw new Error(limits.text);
  const urls: string[] = [];
  const bodies: string[] = [];
  for (let i = 0; i < CONCURRENCY; i++) {
    const wallet = await stack.request('POST', '/v1/wallets', {
      key: caller.key,
      body: { display_name: `bench ${i}`, currency: 'BRL' },
    });
    await stack.request('POST', '/v1/ledger-entries', {
      key: caller.key,
      body: {
        wallet_id: wallet.body.id,
        org_id: caller.orgId,
        currency: 'BRL',
        amount_minor: '1000000000',
        kind: 'fund',
      },
    });
    // One session per lane: a session is one agent, and policies serialize one agent's calls.
    const session = await stack.request('POST', '/v1/sessions', {
      key: caller.key,
      body: { servers: ['bench-freight'], agent_id: `bench-agent-${i}` },
    });
    urls.push(`${stack.url}/v1/sessions/${session.body.id}/tool-calls`);
    bodies.push(
      JSON.stringify({
        tool: 'bench-freight.quote',
        arguments: { ...ARGS, gateway_payment: { wallet_id: wallet.body.id } },
      }),
    );
  }
  const headers = { Authorization: `Bearer ${caller.key}`, 'content-type': 'application/json' };

  // The same upstream call made directly: one MCP client, connected once, calling the tool.
  const direct = new McpClient(
    { name: 'bench-direct', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await direct.connect(
    new StreamableHTTPClientTransport(new URL(upstreamUrl), {
      requestInit: { headers: { [MCP_UPSTREAM_AUTH.header]: MCP_UPSTREAM_AUTH.value } },
    }),
  );
  const directOnce = async () => !(await direct.callTool({ name: 'quote', arguments: ARGS })).isError;
  await runLoad('warmup', { total: 50, concurrency: 1 }, directOnce);
  const directSingle = await runLoad(
    'direct upstream tools/call (c=1)',
    { total: SINGLE, concurrency: 1 },
    directOnce,
  );
  // The upstream's own cost: client and server both in this process, so its CPU is all of the call's.
  const directLoad = await costed(stack, () =>
    runLoad(
      `direct upstream tools/call (c=${CONCURRENCY})`,
      { total: TOTAL, concurrency: CONCURRENCY },
      directOnce,
    ),
  );
  await spawnRotating({
    label: 'warmup',
    url: urls,
    method: 'POST',
    headers,
    bodies,
    total: 50,
    concurrency: 1,
  });
  const paidSingle = await spawnRotating({
    label: 'paid call through the gateway (c=1)',
    url: urls,
    method: 'POST',
    headers,
    bodies,
    total: SINGLE,
    concurrency: 1,
  });
  const paid = await costed(stack, () =>
    spawnRotating({
      label: `paid call through the gateway (c=${CONCURRENCY})`,
      url: urls,
      method: 'POST',
      headers,
      bodies,
      total: TOTAL,
      concurrency: CONCURRENCY,
    }),
  );
  await direct.close();

  // The empty-workflow floor on the same Temporal server, with its own worker in this process.
  const native = await NativeConnection.connect({ address: stack.config.temporal.address });
  const worker = await Worker.create({
    connection: native,
    taskQueue: 'bench-floor',
    workflowBundle: await bundleWorkflowCode({
      workflowsPath: require.resolve('./support/floor-workflows'),
      logger: quietLogger,
    }),
  });
  const running = worker.run();
  let next = 0;
  const empty = async () => {
    await stack.deps.temporal.client.workflow.execute('emptyWorkflow', {
      taskQueue: 'bench-floor',
      workflowId: `bench-floor-${next++}`,
    });
    return true;
  };
  await runLoad('warmup', { total: 100, concurrency: CONCURRENCY }, empty);
  const floor = await costed(stack, () =>
    runLoad(
      `empty workflow (c=${CONCURRENCY}, Temporal floor)`,
      { total: TOTAL, concurrency: CONCURRENCY },
      empty,
    ),
  );
  worker.shutdown();
  await running;
  await native.close();

  const settled = await stack.db.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM tool_server_charges WHERE status = 'debited'`);
  console.log(machineLine());
  console.log(`tool servers: ${TOTAL} paid calls at concurrency ${CONCURRENCY}, ${SINGLE} one at a time`);
  for (const result of [directSingle, paidSingle]) console.log(formatResult(result));
  for (const result of [directLoad, paid, floor])
    console.log(`${formatResult(result)}   ${costLine(result)}`);
  console.log(
    `  overhead of a paid call over the direct upstream call: p50 ${(paidSingle.p50 - directSingle.p50).toFixed(2)} ms, p99 ${(paidSingle.p99 - directSingle.p99).toFixed(2)} ms`,
  );
  const ratio = paid.rps / floor.rps;
  console.log(
    `paid calls / empty-workflow floor throughput: ${ratio.toFixed(2)} (target >= 0.9: ${ratio >= 0.9 ? 'met' : 'missed'}); Temporal server CPU per paid call ${paid.serverMs.toFixed(1)} ms against ${floor.serverMs.toFixed(1)} ms per empty workflow`,
  );
  // What 0.9 of the floor allows per paid call on this machine, against the least a paid call must cost:
  // one workflow as the floor's, the upstream call itself, and what the call adds in Temporal and
  // PostgreSQL (its upstream call is a scheduled activity, sent once and never retried).
  const all = (r: Costed) => r.processMs + r.serverMs + r.postgresMs;
  const budget = (os.cpus().length * 1000) / (0.9 * floor.rps);
  const least = all(floor) + all(directLoad) + (paid.serverMs - floor.serverMs) + paid.postgresMs;
  console.log(
    `  0.9 of the floor on ${os.cpus().length} cores leaves ${budget.toFixed(1)} ms of machine CPU per paid call; a paid call needs at least ${least.toFixed(1)} ms (the floor's workflow ${all(floor).toFixed(1)}, the upstream call ${all(directLoad).toFixed(1)}, the activity's Temporal work ${(paid.serverMs - floor.serverMs).toFixed(1)}, the call's PostgreSQL work ${paid.postgresMs.toFixed(1)}) and costs ${all(paid).toFixed(1)} ms`,
  );
  console.log(`charges debited in PostgreSQL: ${settled}`);
  await stack.stop();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
