// Diagnostic (not a benchmark): where one lone wallet execute spends its time, beside a lone empty
// workflow on the same server. For each attempt, a timeline relative to the request's send: every
// PostgreSQL statement (API and worker share this process), the Update-with-Start call, each provider
// HTTP call, and the workflow history's events (server clock), then the median of each mark.
//   LONE=20 npx tsx bench/profile-lone.ts
import { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Client as PgClient } from 'pg';
import { Client, WorkflowClient } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import type { temporal } from '@temporalio/proto';
import { quietLogger } from '../worker/bundle';
// The SDK's own activity runner, reached past its public surface for this diagnostic only.
import { Activity } from '@temporalio/worker/lib/activity';
import { startBenchStack } from './support/stack';
import { executeBodies, fundedWallets } from './support/wallets';
import { workflowIds } from '../contracts/workflow-ids';

interface Mark {
  at: number;
  end?: number;
  what: string;
}

let marks: Mark[] = [];
const now = () => performance.now();

function spy(): void {
  const query = PgClient.prototype.query;
  PgClient.prototype.query = function (this: PgClient, ...args: unknown[]) {
    const text = typeof args[0] === 'string' ? args[0] : ((args[0] as { text?: string })?.text ?? '?');
    const mark: Mark = { at: now(), what: `sql ${text.replace(/\s+/g, ' ').trim().slice(0, 70)}` };
    marks.push(mark);
    const result = (query as (...a: unknown[]) => unknown).apply(this, args);
    if (result instanceof Promise) void result.finally(() => (mark.end = now())).catch(() => undefined);
    return result;
  } as typeof query;
  const fetchOf = globalThis.fetch;
  globalThis.fetch = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const mark: Mark = { at: now(), what: `fetch ${String(input).replace(/^https?:\/\/[^/]+/, '')}` };
    marks.push(mark);
    try {
      return await fetchOf(input, init);
    } finally {
      mark.end = now();
    }
  }) as typeof fetch;
  // When the worker begins each activity (local ones included), before its interceptors and its code.
  const run = Activity.prototype.run;
  Activity.prototype.run = function (this: Activity, ...args: Parameters<typeof run>) {
    marks.push({ at: now(), what: `activity ${this.info.activityType}` });
    return run.apply(this, args);
  };
  const end = ServerResponse.prototype.end;
  ServerResponse.prototype.end = function (this: ServerResponse, ...args: never[]) {
    marks.push({ at: now(), what: 'api response end' });
    return (end as (...a: never[]) => ServerResponse).apply(this, args);
  } as typeof end;
  const uws = WorkflowClient.prototype.executeUpdateWithStart;
  WorkflowClient.prototype.executeUpdateWithStart = async function (this: WorkflowClient, ...args: never[]) {
    const mark: Mark = { at: now(), what: 'temporal executeUpdateWithStart' };
    marks.push(mark);
    try {
      return await (uws as (...a: never[]) => Promise<unknown>).apply(this, args);
    } finally {
      mark.end = now();
    }
  } as typeof uws;
}

/** Each history event's time relative to `epoch0` (the server's clock; the same machine's). */
function historyMarks(
  events: temporal.api.history.v1.IHistoryEvent[],
  epoch0: number,
  add: (key: string, value: number) => void,
): void {
  const counts = new Map<string, number>();
  for (const event of events) {
    const type = Object.keys(event).find((k) => k.endsWith('EventAttributes')) ?? '?';
    const n = (counts.get(type) ?? 0) + 1;
    counts.set(type, n);
    const at = Number(event.eventTime?.seconds ?? 0) * 1000 + (event.eventTime?.nanos ?? 0) / 1e6 - epoch0;
    add(`history ${type.replace('EventAttributes', '')}${n > 1 ? ` #${n}` : ''}`, at);
  }
}

function print(title: string, rows: Map<string, number[]>): void {
  console.log(title);
  for (const [key, xs] of rows) console.log(`${median(xs).toFixed(2).padStart(8)} ms  ${key} (${xs.length})`);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function main(): Promise<void> {
  const lone = Number(process.env.LONE ?? 20);
  const stack = await startBenchStack();
  const tenant = await stack.createTenant();
  const [wallet] = await fundedWallets(stack, tenant, 1, 'timeline');
  const url = `${stack.url}/v1/wallets/${wallet}/execute`;
  const headers = { Authorization: `Bearer ${tenant.key}`, 'Content-Type': 'application/json' };
  for (const body of executeBodies('warm', 10)) await fetch(url, { method: 'POST', headers, body });
  spy();
  const rows = new Map<string, number[]>();
  const add = (key: string, value: number) => rows.set(key, [...(rows.get(key) ?? []), value]);
  const totals: number[] = [];
  for (const body of executeBodies('timeline', lone)) {
    marks = [];
    const t0 = now();
    const epoch0 = Date.now();
    const response = await fetch(url, { method: 'POST', headers, body });
    await response.text();
    const total = now() - t0;
    totals.push(total);
    if (response.status !== 200) throw new Error(`execute answered ${response.status}`);
    const seen = new Map<string, number>();
    for (const m of marks) {
      const n = (seen.get(m.what) ?? 0) + 1;
      seen.set(m.what, n);
      const key = `${m.what}${n > 1 ? ` #${n}` : ''}`;
      add(`${key}  start`, m.at - t0);
      if (m.end !== undefined) add(`${key}  end`, m.end - t0);
    }
    const attemptId = (JSON.parse(body) as { attempt_id: string }).attempt_id;
    const history = await stack.deps.temporal.client.workflow
      .getHandle(workflowIds.spend(tenant.orgId, attemptId))
      .fetchHistory();
    historyMarks(history.events ?? [], epoch0, add);
    add('answered', total);
  }
  // The same attempts interleaved with and without the endings listener, so the load is the same for both.
  const endings = stack.deps.attemptEndings;
  const heard: number[] = [];
  const unheard: number[] = [];
  for (const [i, body] of executeBodies('ab', 2 * lone).entries()) {
    stack.deps.attemptEndings = i % 2 === 0 ? endings : undefined;
    const t0 = now();
    const response = await fetch(url, { method: 'POST', headers, body });
    await response.text();
    (i % 2 === 0 ? heard : unheard).push(now() - t0);
  }
  stack.deps.attemptEndings = endings;
  console.log(
    `interleaved: answered once the outcome is heard stored p50 ${median(heard).toFixed(1)} ms, by the update's outcome p50 ${median(unheard).toFixed(1)} ms`,
  );
  print(
    `lone wallet execute: ${lone} attempts, p50 ${median(totals).toFixed(1)} ms (each mark's start and end)`,
    rows,
  );

  // The floor: an empty workflow on the same server, its worker in this process beside the gateway's.
  const native = await NativeConnection.connect({ address: stack.temporal.address });
  const floorWorker = await Worker.create({
    connection: native,
    taskQueue: 'floor',
    workflowBundle: await bundleWorkflowCode({
      workflowsPath: require.resolve('./support/floor-workflows'),
      logger: quietLogger,
    }),
  });
  const floorRunning = floorWorker.run();
  const client = new Client({ connection: native });
  const floor = new Map<string, number[]>();
  const addFloor = (key: string, value: number) => floor.set(key, [...(floor.get(key) ?? []), value]);
  for (let i = 0; i < lone + 10; i++) {
    const t0 = now();
    const epoch0 = Date.now();
    await client.workflow.execute('emptyWorkflow', { taskQueue: 'floor', workflowId: `floor-${i}` });
    const total = now() - t0;
    if (i < 10) continue;
    historyMarks(
      (await client.workflow.getHandle(`floor-${i}`).fetchHistory()).events ?? [],
      epoch0,
      addFloor,
    );
    addFloor('answered', total);
  }
  print('lone empty workflow', floor);
  floorWorker.shutdown();
  await floorRunning;
  await native.close();
  await stack.stop();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
