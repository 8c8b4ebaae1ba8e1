// The attempt engine's figures, all on one stack in one run (temporal server start-dev, embedded
// PostgreSQL, the worker and the API in this process, the mocks and the load in child processes), each beside
// the baseline its target names:
// - the empty-workflow floor on the same Temporal server, with a worker of its own in this process: alone,
//   and at concurrency 16 started plainly (the baseline of process CPU) and eagerly (its baseline
//   of throughput, and a stricter one of CPU, printed beside); beside them, the shape every attempt has
//   with no work in it (Update-with-Start, one local activity, the update answered), so a family's own
//   cost reads apart from its shape's;
// - the money families (wallet execute, paid tenant tool call, consumer Pix spend), alone, and at
//   concurrency 16 in interleaved rounds (the floor, the shape, then each family; BENCH_ROUNDS, 3 by
//   default) whose ratios are taken within a round and reported as their median, so a drift in the
//   machine's load weighs on a family and its floor alike; with the CPU time of this process (API +
//   worker), of the Temporal server and of PostgreSQL per attempt, and beside them the workflow activations
//   (workflow tasks plus local activity results, read from a finished attempt's history) and the
//   PostgreSQL round trips this process made per attempt, so the next change can see where the time goes;
// - replays of settled attempts for one caller, warm (the same attempt again) and cold (each attempt once),
//   beside a bare node:http server and a bare Koa handler answering the same body through the same
//   listener settings, and the same Koa handler reading the settled row once by key (what a cold replay
//   cannot do without); in rounds of their own after the loads' (each replaying one load round's spends),
//   each p99 taken against its round's bare Koa handler and reported as the median over the rounds, since
//   a p99 of a thousand sub-millisecond answers is the tenth slowest and moves with any pause.
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
// The loads at concurrency 16 run in this many interleaved rounds: the floors, the shape, then each family.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
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

/** The median of some figures (the mean of the middle two for an even count). */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** A figure's median over the rounds, with its spread. */
function spread(values: number[], digits = 2, unit = ''): string {
  const at = (value: number) => value.toFixed(digits);
  return `${at(median(values))}${unit} (rounds ${at(Math.min(...values))}-${at(Math.max(...values))})`;
}

/**
 * The empty-workflow floor and the attempt's empty shape, on the same Temporal server with a worker of
 * their own in this process beside the gateway's.
 */
async function startFloor(stack: BenchStack) {
  const native = await NativeConnection.connect({ address: stack.temporal.address });
  const worker = await Worker.create({
    connection: native,
    taskQueue: 'floor',
    activities: { noop: async () => 1 },
    workflowBundle: await bundleWorkflowCode({
      workflowsPath: require.resolve('./support/floor-workflows'),
      logger: quietLogger,
    }),
  });
  const running = worker.run();
  // The floor's client runs over the same kind of connection as the API's (native), so the ratios compare
  // workflows, not clients.
  const client = new Client({ connection: native });
  let next = 0;
  const empty = (eager: boolean) => async () => {
    await client.workflow.execute('emptyWorkflow', {
      taskQueue: 'floor',
      workflowId: `floor-${next++}`,
      requestEagerStart: eager,
    });
    return true;
  };
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
  await runLoad('warmup', { total: 50, concurrency: CONCURRENCY }, empty(false));
  await runLoad('warmup', { total: 50, concurrency: CONCURRENCY }, shape);
  return {
    lone: () =>
      costed(stack, () => runLoad('empty workflow, alone', { total: LONE, concurrency: 1 }, empty(false))),
    plain: (round: number) =>
      costed(stack, () =>
        runLoad(
          `empty workflow, c=${CONCURRENCY}, round ${round}`,
          { total: TOTAL, concurrency: CONCURRENCY },
          empty(false),
        ),
      ),
    eager: (round: number) =>
      costed(stack, () =>
        runLoad(
          `empty workflow, c=${CONCURRENCY}, eager start, round ${round}`,
          { total: TOTAL, concurrency: CONCURRENCY },
          empty(true),
        ),
      ),
    shape: (round: number) =>
      costed(stack, () =>
        runLoad(
          `attempt shape, empty, c=${CONCURRENCY}, round ${round}`,
          { total: TOTAL, concurrency: CONCURRENCY },
          shape,
        ),
      ),
    async stop() {
      worker.shutdown();
      await running;
      await native.close();
    },
  };
}

/** Wallet execute: 16 funded wallets, each request a new attempt on one of them. */
async function walletFamily(stack: BenchStack, tenant: Tenant, headers: Record<string, string>) {
  const wallets = await fundedWallets(stack, tenant, CONCURRENCY, 'engine');
  const urls = wallets.map((w) => `${stack.url}/v1/wallets/${w}/execute`);
  const run = (label: string, prefix: string, count: number, concurrency: number) =>
    tripped(stack, () =>
      spawnRotating({
        label,
        url: urls,
        method: 'POST',
        headers,
        bodies: executeBodies(prefix, count),
        total: count,
        concurrency,
      }),
    );
  await run('warmup', 'warm', 50, CONCURRENCY);
  return {
    lone: () => run('wallet execute, alone', 'lone', LONE, 1),
    load: (round: number) =>
      run(`wallet execute, c=${CONCURRENCY}, round ${round}`, `load${round}`, TOTAL, CONCURRENCY),
    workflowId: (round: number) => workflowIds.spend(tenant.orgId, `load${round}-0`),
  };
}

/** Paid tenant tool calls: a priced tool of the upstream MCP mock, a session (agent) and wallet per lane. */
async function paidFamily(stack: BenchStack, tenant: Tenant) {
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
  const bodies = (prefix: string, count: number) =>
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
  const run = (label: string, prefix: string, count: number, concurrency: number) =>
    tripped(stack, () =>
      spawnRotating({
        label,
        url: sessionUrls,
        method: 'POST',
        headers: callerHeaders,
        bodies: bodies(prefix, count),
        total: count,
        concurrency,
      }),
    );
  await run('warmup', 'paid-warm', 50, CONCURRENCY);
  return {
    lone: () => run('paid tool call, alone', 'paid-lone', LONE, 1),
    load: (round: number) =>
      run(`paid tool call, c=${CONCURRENCY}, round ${round}`, `paid-load${round}`, TOTAL, CONCURRENCY),
    workflowId: (round: number) => workflowIds.toolCharge(caller.orgId, `paid-load${round}-0`),
  };
}

/** Consumer Pix spends: one consumer per lane, since one mandate's spends serialize on its lock. */
async function spendFamily(stack: BenchStack, tenant: Tenant, headers: Record<string, string>) {
  const consumers = await Promise.all(
    Array.from({ length: CONCURRENCY }, () =>
      readyConsumer(stack, tenant, {
        fundMinor: 1_000_000_000,
        intent: { cap_minor: 1_000_000_000, per_tx_cap_minor: 10_000 },
      }),
    ),
  );
  const url = `${stack.url}/v1/consumer-payments/execute`;
  const bodies = (count: number) =>
    Array.from({ length: count }, (_, i) =>
      JSON.stringify(pixSpend(consumers[i % CONCURRENCY], { amount_minor: 1_050 })),
    );
  const run = (label: string, sent: string[], concurrency: number) =>
    tripped(stack, () =>
      spawnRotating({ label, url, method: 'POST', headers, bodies: sent, total: sent.length, concurrency }),
    );
  await run('warmup', bodies(50), CONCURRENCY);
  // Every spend made, by round (the first at 0), so the replays can present them again.
  const loneBodies = bodies(LONE);
  const loadBodies: string[][] = [];
  return {
    url,
    loneBodies,
    loadBodies,
    lone: () => run('consumer Pix spend, alone', loneBodies, 1),
    load: (round: number) => {
      loadBodies[round - 1] = bodies(TOTAL);
      return run(`consumer Pix spend, c=${CONCURRENCY}, round ${round}`, loadBodies[round - 1], CONCURRENCY);
    },
    workflowId: (round: number) =>
      workflowIds.consumerSpend(
        tenant.orgId,
        (JSON.parse(loadBodies[round - 1][0]) as { attempt_id: string }).attempt_id,
      ),
  };
}

/**
 * Replays for one caller, one round of them: each settled spend of the round's load once (cold), then one
 * settled spend over and over (warm), beside a bare node:http server and a bare Koa handler answering the
 * same body, and the Koa handler reading the round's settled rows once.
 */
async function replayFigures(
  stack: BenchStack,
  tenant: Tenant,
  headers: Record<string, string>,
  spends: Awaited<ReturnType<typeof spendFamily>>,
  round: number,
) {
  const { url, loneBodies } = spends;
  const loadBodies = spends.loadBodies[round - 1];
  const label = (name: string) => `${name}, round ${round}`;
  // Like the bare handlers' rows, the cold one starts warm, on other data: the lone spends, each replayed
  // once, warm the load generator and the replay's code before the load's spends are replayed once each.
  const cold = await tripped(stack, () =>
    spawnRotating({
      label: label('replay, each spend once (cold)'),
      url,
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
      label: label('replay of one spend (warm)'),
      url,
      method: 'POST',
      headers,
      bodies: [loneBodies[0]],
      total: REPLAYS,
      concurrency: 1,
      warmup: 100,
    }),
  );
  const replayed = await fetch(url, { method: 'POST', headers, body: loneBodies[0] });
  if (replayed.headers.get('idempotent-replayed') !== 'true') throw new Error('the replay was not a replay');
  const fixed = Buffer.from(await replayed.text());
  const alone = (label: string, server: http.Server, total: number) =>
    costed(stack, () =>
      spawnRotating({
        label,
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
        method: 'POST',
        headers,
        bodies: [loneBodies[0]],
        total,
        concurrency: 1,
        warmup: 100,
      }),
    );
  const listening = async (server: http.Server) => {
    if (!server.listening) await new Promise<void>((resolve) => server.once('listening', resolve));
    return server;
  };
  const bare = http.createServer((req, res) => {
    req.resume();
    req.on('end', () =>
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': fixed.length }).end(fixed),
    );
  });
  bare.listen(0, '127.0.0.1');
  const bareLone = await alone(label('bare node:http, same body'), await listening(bare), REPLAYS);
  bare.close();
  // A bare Koa handler answering the same body, listening as the gateway does (keep-alive kept 65 s).
  const koa = new Koa();
  koa.use((ctx) => {
    ctx.type = 'application/json';
    ctx.body = fixed;
  });
  const koaServer = koa.listen(0, '127.0.0.1');
  koaServer.keepAliveTimeout = 65_000;
  const koaLone = await alone(label('bare Koa handler, same body'), await listening(koaServer), REPLAYS);
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
  const koaRead = await alone(
    label('bare Koa reading the row once'),
    await listening(readingServer),
    loadBodies.length,
  );
  readingServer.closeAllConnections();
  readingServer.close();
  return { cold, warm, bareLone, koaLone, koaRead };
}

async function main(): Promise<void> {
  const stack = await startBenchStack({ poolSize: 40 });
  const tenant = await stack.createTenant();
  const headers = { Authorization: `Bearer ${tenant.key}`, 'Content-Type': 'application/json' };

  const floor = ALL ? await startFloor(stack) : undefined;
  const wallet = ALL ? await walletFamily(stack, tenant, headers) : undefined;
  const paid = ALL ? await paidFamily(stack, tenant) : undefined;
  const spend = await spendFamily(stack, tenant, headers);

  // Alone: each once. At concurrency 16: interleaved rounds, each family's figures against the floor's of
  // the same round, so a drift in the machine's load weighs on both alike.
  const floorLone = await floor?.lone();
  const executeLone = await wallet?.lone();
  const paidLone = await paid?.lone();
  const spendLone = await spend.lone();
  const rounds = [];
  for (let round = 1; round <= ROUNDS; round++)
    rounds.push({
      plain: await floor?.plain(round),
      eager: await floor?.eager(round),
      shape: await floor?.shape(round),
      'wallet execute': await wallet?.load(round),
      'paid tool call': await paid?.load(round),
      'consumer Pix spend': await spend.load(round),
    });
  // The replays in rounds of their own, after the loads: each round replays the spends of one load round.
  const replays: Awaited<ReturnType<typeof replayFigures>>[] = [];
  for (let round = 1; round <= rounds.length; round++)
    replays.push(await replayFigures(stack, tenant, headers, spend, round));

  console.log(machineLine());
  console.log(
    `attempt engine: ${LONE} alone and ${TOTAL} at c=${CONCURRENCY} per family in each of ${ROUNDS} interleaved rounds, one stack, one run${ALL ? '' : ' (replays only)'}`,
  );
  const rows: Costed[] = [floorLone, executeLone, paidLone, spendLone].filter((r) => r !== undefined);
  for (const round of rounds)
    rows.push(
      ...[
        round.plain,
        round.eager,
        round.shape,
        round['wallet execute'],
        round['paid tool call'],
        round['consumer Pix spend'],
      ].filter((r) => r !== undefined),
    );
  for (const r of rows) console.log(line(r));
  for (const { bareLone, koaLone, koaRead, cold, warm } of replays)
    for (const r of [bareLone, koaLone, koaRead, cold, warm]) console.log(line(r));
  console.log(
    "targets (issue 27), each ratio the median over the rounds of a family's figure to its round's floor:",
  );
  if (floor && wallet && paid && floorLone) {
    const plains = rounds.map((r) => r.plain!);
    const eagers = rounds.map((r) => r.eager!);
    const shapes = rounds.map((r) => r.shape!);
    console.log(
      `- the attempt's shape with no work in it (Update-with-Start, one local activity, the update answered): process CPU ${spread(
        shapes.map((s, i) => s.processMs / plains[i].processMs),
        2,
        'x',
      )} the empty workflow's (${spread(
        shapes.map((s, i) => s.processMs / eagers[i].processMs),
        2,
        'x',
      )} the eager one's), throughput ${spread(shapes.map((s, i) => s.rps / eagers[i].rps))} of the eager floor's`,
    );
    const families = [
      ['wallet execute', executeLone!, wallet.workflowId(1)],
      ['paid tool call', paidLone!, paid.workflowId(1)],
      ['consumer Pix spend', spendLone, spend.workflowId(1)],
    ] as const;
    for (const [family, lone, workflowId] of families) {
      const loads = rounds.map((r) => r[family]!);
      const cpu = loads.map((l, i) => l.processMs / plains[i].processMs);
      const cpuEager = loads.map((l, i) => l.processMs / eagers[i].processMs);
      const rate = loads.map((l, i) => l.rps / eagers[i].rps);
      const machine = (r: Costed) => r.processMs + r.serverMs + r.postgresMs;
      console.log(
        `- ${family}: ${await activationsOf(stack, workflowId)}; ${median(loads.map((l) => l.trips)).toFixed(1)} PostgreSQL round trips per attempt from API + worker`,
      );
      console.log(
        `- ${family}: process CPU per attempt ${spread(
          loads.map((l) => l.processMs),
          1,
          ' ms',
        )} = ${spread(cpu, 2, 'x')} the empty workflow's ${median(plains.map((f) => f.processMs)).toFixed(1)} ms at c=${CONCURRENCY} (<= 2.0x: ${verdict(median(cpu) <= 2)}), ${spread(cpuEager, 2, 'x')} the eager one's ${median(eagers.map((f) => f.processMs)).toFixed(1)} ms; ${median(loads.map((l, i) => l.processMs - shapes[i].processMs)).toFixed(1)} ms above the empty attempt shape's`,
      );
      console.log(
        `- ${family}: ${median(loads.map((l) => l.rps)).toFixed(1)}/s at c=${CONCURRENCY} = ${spread(rate)} of the eager floor's ${median(eagers.map((f) => f.rps)).toFixed(1)}/s (>= 0.5: ${verdict(median(rate) >= 0.5)}); machine CPU per attempt ${median(loads.map(machine)).toFixed(1)} ms against ${median(eagers.map(machine)).toFixed(1)} ms per empty workflow`,
      );
      console.log(
        `- ${family}: alone p50 ${lone.p50.toFixed(1)} ms against the lone empty workflow's ${floorLone.p50.toFixed(1)} ms + 15 (${verdict(lone.p50 <= floorLone.p50 + 15)})`,
      );
    }
  }
  // Each replay row's p99 against the bare Koa handler's of its own round.
  const toKoa = (row: 'warm' | 'cold' | 'koaRead') => replays.map((r) => r[row].p99 / r.koaLone.p99);
  const p99s = (row: 'warm' | 'cold' | 'koaRead' | 'koaLone' | 'bareLone') =>
    spread(
      replays.map((r) => r[row].p99),
      2,
      ' ms',
    );
  console.log(
    `- replay for one caller: warm p99 ${p99s('warm')} = ${spread(toKoa('warm'), 2, 'x')} the bare Koa handler's ${p99s('koaLone')} (<= 1.5x: ${verdict(median(toKoa('warm')) <= 1.5)}); cold p99 ${p99s('cold')} = ${spread(toKoa('cold'), 2, 'x')} (<= 3x: ${verdict(median(toKoa('cold')) <= 3)}); the bare Koa handler reading the row once: p99 ${p99s('koaRead')} = ${spread(toKoa('koaRead'), 2, 'x')}; bare node:http p99 ${p99s('bareLone')}`,
  );

  await floor?.stop();
  await stack.stop();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
