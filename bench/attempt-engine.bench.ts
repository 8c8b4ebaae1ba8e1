// The attempt engine's figures, all on one stack in one run (temporal server start-dev, embedded
// PostgreSQL, the worker and the API in this process, the mocks and the load in child processes), each beside
// the baseline its target names:
// - the empty-workflow floor on the same Temporal server, with a worker of its own in this process: alone,
//   and at concurrency 16 with eager start; beside it, the shape every attempt has with no work in it
//   (Update-with-Start, one local activity, the update answered), so a family's own cost reads apart from
//   its shape's;
// - the money families (wallet execute, paid tenant tool call, consumer Pix spend), alone and at
//   concurrency 16, with the CPU time of this process (API + worker), of the Temporal server and of
//   PostgreSQL per attempt, and beside them the workflow activations (workflow tasks plus local activity
//   results, read from a finished attempt's history) and the PostgreSQL round trips this process made per
//   attempt, so the next change can see where the time goes;
// - replays of settled attempts for one caller, warm (the same attempt again) and cold (each attempt once),
//   beside a bare node:http server and a bare Koa handler answering the same body through the same
//   listener settings, and the same Koa handler reading the settled row once by key (what a cold replay
//   cannot do without).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { Client, WithStartWorkflowOperation } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { MCP_UPSTREAM_AUTH } from '../providers/mocks/mcp-upstream';
import { workflowIds } from '../contracts/workflow-ids';
import { quietLogger } from '../worker/bundle';
import { pixSpend, readyConsumer } from '../test/support/consumer-spend';
import { readPresented } from '../domain/attempts/store';
import { costed, costLine, type Costed } from './support/cpu';
import { executeBodies, fundedWallets } from './support/wallets';
import { startBenchStack } from './support/stack';
import { formatResult, machineLine, runLoad, type LoadResult } from './support/load';
import { spawnRotating } from './support/spawn-rotating';
import { roundTrips } from './support/round-trips';
import type { BenchStack } from './support/stack';
import type { Tenant } from '../test/support/harness';

const CONCURRENCY = 16;
const LONE = Number(process.env.BENCH_LONE ?? 100);
const TOTAL = Number(process.env.BENCH_ATTEMPTS ?? 400);
const REPLAYS = Number(process.env.BENCH_REPLAYS ?? 1_000);
// BENCH_ONLY=replay: only the consumer spends (they make the attempts replayed) and the replay rows.
const ALL = process.env.BENCH_ONLY !== 'replay';

const line = (r: Costed) => `${formatResult(r)}   ${costLine(r)}`;
const verdict = (met: boolean) => (met ? 'met' : 'missed');

/** A load's CPU cost and the PostgreSQL round trips this process (API and worker) made per request. */
async function tripped(
  stack: BenchStack,
  run: () => Promise<LoadResult>,
): Promise<Costed & { trips: number }> {
  const before = roundTrips();
  const result = await costed(stack, run);
  return { ...result, trips: (roundTrips() - before) / result.requests };
}

/**
 * The workflow activations of one finished attempt, from its history: each workflow task is one, and so is
 * each local activity result (it wakes the workflow inside the task).
 */
async function activationsOf(stack: BenchStack, workflowId: string): Promise<string> {
  const history = await stack.deps.temporal.client.workflow.getHandle(workflowId).fetchHistory();
  const events = history.events ?? [];
  const tasks = events.filter((e) => e.workflowTaskStartedEventAttributes).length;
  const locals = events.filter(
    (e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity',
  ).length;
  const scheduled = events.filter((e) => e.activityTaskScheduledEventAttributes).length;
  return `${tasks + locals} activations (${tasks} workflow tasks, ${locals} local activities, ${scheduled} scheduled activities)`;
}

/** The floor and the wallet-execute and paid-tool-call figures, each beside what it is compared with. */
async function familyFigures(stack: BenchStack, tenant: Tenant, headers: Record<string, string>) {
  // The floor: an empty workflow on the same server, its worker in this process beside the gateway's.
  const native = await NativeConnection.connect({ address: stack.temporal.address });
  const floorWorker = await Worker.create({
    connection: native,
    taskQueue: 'floor',
    activities: { noop: async () => 1 },
    workflowBundle: await bundleWorkflowCode({
      workflowsPath: require.resolve('./support/floor-workflows'),
      logger: quietLogger,
    }),
  });
  const floorRunning = floorWorker.run();
  // The floor's client runs over the same kind of connection as the API's (native), so the ratios compare
  // workflows, not clients.
  const client = new Client({ connection: native });
  let next = 0;
  const empty = (client: Client, eager: boolean) => async () => {
    await client.workflow.execute('emptyWorkflow', {
      taskQueue: 'floor',
      workflowId: `floor-${next++}`,
      requestEagerStart: eager,
    });
    return true;
  };
  await runLoad('warmup', { total: 50, concurrency: CONCURRENCY }, empty(client, false));
  const floorLone = await costed(stack, () =>
    runLoad('empty workflow, alone', { total: LONE, concurrency: 1 }, empty(client, false)),
  );
  const floorEager = await costed(stack, () =>
    runLoad(
      `empty workflow, c=${CONCURRENCY}, eager start`,
      { total: TOTAL, concurrency: CONCURRENCY },
      empty(client, true),
    ),
  );

  const shape = async () => {
    await client.workflow.executeUpdateWithStart('answer', {
      startWorkflowOperation: new WithStartWorkflowOperation('emptyAttempt', {
        taskQueue: 'floor',
        workflowId: `floor-${next++}`,
        workflowIdConflictPolicy: 'USE_EXISTING',
      }),
    });
    return true;
  };
  await runLoad('warmup', { total: 50, concurrency: CONCURRENCY }, shape);
  const shapeLoad = await costed(stack, () =>
    runLoad(`attempt shape, empty, c=${CONCURRENCY}`, { total: TOTAL, concurrency: CONCURRENCY }, shape),
  );

  // Wallet execute: 16 funded wallets, each request a new attempt on one of them.
  const wallets = await fundedWallets(stack, tenant, CONCURRENCY, 'engine');
  const executeUrls = wallets.map((w) => `${stack.url}/v1/wallets/${w}/execute`);
  const executes = (label: string, prefix: string, count: number, concurrency: number) =>
    tripped(stack, () =>
      spawnRotating({
        label,
        url: executeUrls,
        method: 'POST',
        headers,
        bodies: executeBodies(prefix, count),
        total: count,
        concurrency,
      }),
    );
  await executes('warmup', 'warm', 50, CONCURRENCY);
  const executeLone = await executes('wallet execute, alone', 'lone', LONE, 1);
  const executeLoad = await executes(`wallet execute, c=${CONCURRENCY}`, 'load', TOTAL, CONCURRENCY);

  // Paid tenant tool calls: a priced tool of the upstream MCP mock, one session (agent) and wallet per lane.
  const server = await stack.request('POST', '/v1/mcp-servers', {
    key: tenant.key,
    body: {
      slug: 'bench-engine',
      name: 'Bench engine',
      upstream_url: stack.config.providerUrls.mcp_upstream,
      upstream_auth: MCP_UPSTREAM_AUTH,
      platform_fee_bps: 1500,
      tools: [{ tool_name: 'quote', price: '0.01' }],
    },
  });
  if (server.status !== 201) throw new Error(server.text);
  const caller = await stack.createTenant();
  await stack.request('PATCH', `/v1/projects/${caller.projectId}/settings`, {
    key: caller.key,
    body: { session_tool_calls_per_minute: 100_000 },
  });
  const callerWallets = await fundedWallets(stack, caller, CONCURRENCY, 'paid');
  const sessionUrls: string[] = [];
  for (let i = 0; i < CONCURRENCY; i++) {
    const session = await stack.request('POST', '/v1/sessions', {
      key: caller.key,
      body: { servers: ['bench-engine'], agent_id: `bench-agent-${i}` },
    });
    sessionUrls.push(`${stack.url}/v1/sessions/${session.body.id}/tool-calls`);
  }
  const callerHeaders = { Authorization: `Bearer ${caller.key}`, 'Content-Type': 'application/json' };
  const paidBodies = (prefix: string, count: number) =>
    Array.from({ length: count }, (_, i) =>
      JSON.stringify({
        tool: 'bench-engine.quote',
        arguments: {
          from: 'SP',
          to: 'RJ',
          gateway_payment: { wallet_id: callerWallets[i % CONCURRENCY], attempt_id: `${prefix}-${i}` },
        },
      }),
    );
  const paidCalls = (label: string, prefix: string, count: number, concurrency: number) =>
    tripped(stack, () =>
      spawnRotating({
        label,
        url: sessionUrls,
        method: 'POST',
        headers: callerHeaders,
        bodies: paidBodies(prefix, count),
        total: count,
        concurrency,
      }),
    );
  await paidCalls('warmup', 'paid-warm', 50, CONCURRENCY);
  const paidLone = await paidCalls('paid tool call, alone', 'paid-lone', LONE, 1);
  const paidLoad = await paidCalls(`paid tool call, c=${CONCURRENCY}`, 'paid-load', TOTAL, CONCURRENCY);

  return {
    floorWorker,
    floorRunning,
    native,
    floorLone,
    floorEager,
    shapeLoad,
    executeLone,
    executeLoad,
    paidLone,
    paidLoad,
    caller,
  };
}

async function main(): Promise<void> {
  const stack = await startBenchStack({ poolSize: 40 });
  const tenant = await stack.createTenant();
  const headers = { Authorization: `Bearer ${tenant.key}`, 'Content-Type': 'application/json' };

  const families = ALL ? await familyFigures(stack, tenant, headers) : undefined;

  // Consumer Pix spends: one consumer per lane, since one mandate's spends serialize on its lock.
  const consumers = await Promise.all(
    Array.from({ length: CONCURRENCY }, () =>
      readyConsumer(stack, tenant, {
        fundMinor: 1_000_000_000,
        intent: { cap_minor: 1_000_000_000, per_tx_cap_minor: 10_000 },
      }),
    ),
  );
  const spendUrl = `${stack.url}/v1/consumer-payments/execute`;
  const spendBodies = (count: number) =>
    Array.from({ length: count }, (_, i) =>
      JSON.stringify(pixSpend(consumers[i % CONCURRENCY], { amount_minor: 1_050 })),
    );
  const spends = (label: string, bodies: string[], concurrency: number) =>
    tripped(stack, () =>
      spawnRotating({
        label,
        url: spendUrl,
        method: 'POST',
        headers,
        bodies,
        total: bodies.length,
        concurrency,
      }),
    );
  await spends('warmup', spendBodies(50), CONCURRENCY);
  const loneBodies = spendBodies(LONE);
  const spendLone = await spends('consumer Pix spend, alone', loneBodies, 1);
  const loadBodies = spendBodies(TOTAL);
  const spendLoad = await spends(`consumer Pix spend, c=${CONCURRENCY}`, loadBodies, CONCURRENCY);

  // Replays for one caller: each settled spend once (cold), then one settled spend over and over (warm).
  // Like the bare handlers' rows, the cold one starts warm, on other data: the lone spends, each replayed
  // once, warm the load generator and the replay's code before the load's spends are replayed once each.
  const cold = await tripped(stack, () =>
    spawnRotating({
      label: 'replay, each settled spend once (cold), alone',
      url: spendUrl,
      method: 'POST',
      headers,
      bodies: [...loneBodies, ...loadBodies],
      total: loadBodies.length,
      concurrency: 1,
      warmup: loneBodies.length,
    }),
  );
  const warm = await costed(stack, () =>
    spawnRotating({
      label: 'replay of one settled spend (warm), alone',
      url: spendUrl,
      method: 'POST',
      headers,
      bodies: [loneBodies[0]],
      total: REPLAYS,
      concurrency: 1,
      warmup: 100,
    }),
  );
  const replayed = await fetch(spendUrl, { method: 'POST', headers, body: loneBodies[0] });
  if (replayed.headers.get('idempotent-replayed') !== 'true') throw new Error('the replay was not a replay');
  const fixed = Buffer.from(await replayed.text());
  const bare = http.createServer((req, res) => {
    req.resume();
    req.on('end', () =>
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': fixed.length }).end(fixed),
    );
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const bareLone = await costed(stack, () =>
    spawnRotating({
      label: 'bare node:http, same body, alone',
      url: `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`,
      method: 'POST',
      headers,
      bodies: [loneBodies[0]],
      total: REPLAYS,
      concurrency: 1,
      warmup: 100,
    }),
  );
  bare.close();
  // A bare Koa handler answering the same body, listening as the gateway does (keep-alive kept 65 s).
  const koa = new Koa();
  koa.use((ctx) => {
    ctx.type = 'application/json';
    ctx.body = fixed;
  });
  const koaServer = koa.listen(0, '127.0.0.1');
  koaServer.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => koaServer.once('listening', resolve));
  const koaLone = await costed(stack, () =>
    spawnRotating({
      label: 'bare Koa handler, same body, alone',
      url: `http://127.0.0.1:${(koaServer.address() as AddressInfo).port}/`,
      method: 'POST',
      headers,
      bodies: [loneBodies[0]],
      total: REPLAYS,
      concurrency: 1,
      warmup: 100,
    }),
  );
  koaServer.closeAllConnections();
  koaServer.close();
  // The least a cold replay can do: the same Koa handler reading the settled row once, by key, through the
  // gateway's pool, each settled spend once as the cold replay does.
  const keyOf = (body: string) => (JSON.parse(body) as { attempt_id: string }).attempt_id;
  const reading = new Koa();
  let read = 0;
  reading.use(async (ctx) => {
    const attemptId = keyOf(loadBodies[read++ % loadBodies.length]);
    const row = await readPresented(stack.db, 'consumer', tenant.orgId, attemptId);
    ctx.type = 'application/json';
    ctx.body = row?.response_text ?? fixed;
  });
  const readingServer = reading.listen(0, '127.0.0.1');
  readingServer.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => readingServer.once('listening', resolve));
  const koaRead = await costed(stack, () =>
    spawnRotating({
      label: 'bare Koa handler reading the row once',
      url: `http://127.0.0.1:${(readingServer.address() as AddressInfo).port}/`,
      method: 'POST',
      headers,
      bodies: [loneBodies[0]],
      total: loadBodies.length,
      concurrency: 1,
      warmup: 100,
    }),
  );
  readingServer.closeAllConnections();
  readingServer.close();

  console.log(machineLine());
  console.log(
    `attempt engine: ${LONE} alone and ${TOTAL} at c=${CONCURRENCY} per family, one stack, one run${ALL ? '' : ' (replays only)'}`,
  );
  const f = families;
  for (const r of [
    ...(f
      ? [f.floorLone, f.floorEager, f.shapeLoad, f.executeLone, f.executeLoad, f.paidLone, f.paidLoad]
      : []),
    spendLone,
    spendLoad,
    bareLone,
    koaLone,
    koaRead,
    cold,
    warm,
  ])
    console.log(line(r));
  console.log("targets (issue 27), against the same run's floor:");
  if (f) {
    const activations = {
      'wallet execute': await activationsOf(stack, workflowIds.spend(tenant.orgId, 'load-0')),
      'paid tool call': await activationsOf(stack, workflowIds.toolCharge(f.caller.orgId, 'paid-load-0')),
      'consumer Pix spend': await activationsOf(
        stack,
        workflowIds.consumerSpend(
          tenant.orgId,
          (JSON.parse(loadBodies[0]) as { attempt_id: string }).attempt_id,
        ),
      ),
    };
    const { floorLone, floorEager, shapeLoad } = f;
    console.log(
      `- the attempt's shape with no work in it (Update-with-Start, one local activity, the update answered): process CPU ${shapeLoad.processMs.toFixed(1)} ms = ${(shapeLoad.processMs / floorEager.processMs).toFixed(2)}x the empty workflow's, ${shapeLoad.rps.toFixed(1)}/s = ${(shapeLoad.rps / floorEager.rps).toFixed(2)} of the eager floor`,
    );
    for (const [family, lone, load] of [
      ['wallet execute', f.executeLone, f.executeLoad],
      ['paid tool call', f.paidLone, f.paidLoad],
      ['consumer Pix spend', spendLone, spendLoad],
    ] as const) {
      const cpu = load.processMs / floorEager.processMs;
      const ratio = load.rps / floorEager.rps;
      console.log(
        `- ${family}: ${activations[family]}; ${load.trips.toFixed(1)} PostgreSQL round trips per attempt from API + worker`,
      );
      console.log(
        `- ${family}: process CPU per attempt ${load.processMs.toFixed(1)} ms = ${cpu.toFixed(2)}x the empty workflow's ${floorEager.processMs.toFixed(1)} ms at c=${CONCURRENCY} (<= 2.0x: ${verdict(cpu <= 2)}); ${(load.processMs - shapeLoad.processMs).toFixed(1)} ms above the empty attempt shape's`,
      );
      console.log(
        `- ${family}: ${load.rps.toFixed(1)}/s at c=${CONCURRENCY} = ${ratio.toFixed(2)} of the eager floor's ${floorEager.rps.toFixed(1)}/s (>= 0.5: ${verdict(ratio >= 0.5)}); machine CPU per attempt ${(load.processMs + load.serverMs + load.postgresMs).toFixed(1)} ms against ${(floorEager.processMs + floorEager.serverMs + floorEager.postgresMs).toFixed(1)} ms per empty workflow`,
      );
      console.log(
        `- ${family}: alone p50 ${lone.p50.toFixed(1)} ms against the lone empty workflow's ${floorLone.p50.toFixed(1)} ms + 15 (${verdict(lone.p50 <= floorLone.p50 + 15)})`,
      );
    }
  }
  console.log(
    `- replay for one caller: warm p99 ${warm.p99.toFixed(2)} ms (<= 1.5x the bare Koa handler's ${koaLone.p99.toFixed(2)} ms: ${verdict(warm.p99 <= 1.5 * koaLone.p99)}), cold p99 ${cold.p99.toFixed(2)} ms (<= 3x: ${verdict(cold.p99 <= 3 * koaLone.p99)}; the bare Koa handler reading the row once: p99 ${koaRead.p99.toFixed(2)} ms = ${(koaRead.p99 / koaLone.p99).toFixed(1)}x); bare node:http p50 ${bareLone.p50.toFixed(2)} ms, p99 ${bareLone.p99.toFixed(2)} ms`,
  );

  if (f) {
    f.floorWorker.shutdown();
    await f.floorRunning;
    await f.native.close();
  }
  await stack.stop();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
