// What one workflow costs on this machine, whatever it does: an empty workflow (no activity, one workflow
// task) started and awaited through `temporal server start-dev` launched exactly as the gateway launches
// it, with a worker in this process. Four ways: a lone caller; concurrency 16 through a client over grpc-js
// and over the SDK's native connection (as the API starts attempts), twice each; concurrency 16 with eager
// start (the server hands the first workflow task straight back to a worker sharing the starter's
// connection). By Little's law, a p50 under 30 ms at
// concurrency 16 needs more than 500 workflows/s, so these figures bound every workflow-per-request path.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { startDevServer } from '../temporal-dev/dev-server';
import { freePort } from '../test/support/free-port';
import { quietLogger } from '../worker/bundle';
import { installRuntime } from '../worker/worker';
import { formatResult, machineLine, runLoad, type LoadResult } from './support/load';

const CONCURRENCY = 16;
const TOTAL = Number(process.env.BENCH_WORKFLOWS ?? 600);

/** CPU time (ms) a process has used so far, from /proc. */
function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

async function main(): Promise<void> {
  installRuntime('ERROR');
  const root = mkdtempSync(path.join(os.tmpdir(), 'gateway-floor-'));
  const server = await startDevServer({
    dataDir: root,
    port: await freePort(),
    uiPort: await freePort(),
    namespace: 'default',
  });
  const native = await NativeConnection.connect({ address: server.address });
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('./support/floor-workflows'),
    logger: quietLogger,
  });
  const worker = await Worker.create({ connection: native, taskQueue: 'floor', workflowBundle });
  const running = worker.run();
  const grpc = new Client({ connection: await Connection.connect({ address: server.address }) });
  const local = new Client({ connection: native });

  let next = 0;
  const measure = async (
    label: string,
    client: Client,
    concurrency: number,
    eager: boolean,
  ): Promise<LoadResult & { serverMs: number; clientMs: number }> => {
    const serverBefore = processCpuMs(server.pid);
    const clientBefore = process.cpuUsage();
    const result = await runLoad(label, { total: TOTAL, concurrency }, async () => {
      await client.workflow.execute('emptyWorkflow', {
        taskQueue: 'floor',
        workflowId: `floor-${next++}`,
        requestEagerStart: eager,
      });
      return true;
    });
    const used = process.cpuUsage(clientBefore);
    return {
      ...result,
      serverMs: (processCpuMs(server.pid) - serverBefore) / TOTAL,
      clientMs: (used.user + used.system) / 1000 / TOTAL,
    };
  };
  await runLoad('warmup', { total: 100, concurrency: CONCURRENCY }, async () => {
    await grpc.workflow.execute('emptyWorkflow', { taskQueue: 'floor', workflowId: `floor-${next++}` });
    return true;
  });
  // The client's own cost: the same load over grpc-js and over the native connection, in the order
  // grpc, native, native, grpc so a drift in the machine's load weighs on both alike.
  const viaGrpc = `empty workflow, c=${CONCURRENCY}, grpc-js connection`;
  const viaNative = `empty workflow, c=${CONCURRENCY}, native connection`;
  const results = [
    await measure('empty workflow, one caller', grpc, 1, false),
    await measure(viaGrpc, grpc, CONCURRENCY, false),
    await measure(viaNative, local, CONCURRENCY, false),
    await measure(viaNative, local, CONCURRENCY, false),
    await measure(viaGrpc, grpc, CONCURRENCY, false),
    await measure(`empty workflow, c=${CONCURRENCY}, eager start`, local, CONCURRENCY, true),
  ];
  const clientMs = (label: string) => {
    const runs = results.filter((r) => r.label === label);
    return runs.reduce((sum, r) => sum + r.clientMs, 0) / runs.length;
  };

  console.log(machineLine());
  console.log(
    `Temporal floor: ${TOTAL} empty workflows per run (temporal server start-dev, SQLite file, worker in this process)`,
  );
  for (const r of results)
    console.log(
      `${formatResult(r)}   server CPU ${r.serverMs.toFixed(1)} ms/wf, worker+client CPU ${r.clientMs.toFixed(1)} ms/wf`,
    );
  console.log(
    `worker+client CPU per workflow at c=${CONCURRENCY}: grpc-js ${clientMs(viaGrpc).toFixed(2)} ms, native ${clientMs(viaNative).toFixed(2)} ms (${(clientMs(viaNative) / clientMs(viaGrpc)).toFixed(2)}x)`,
  );
  const best = Math.max(...results.map((r) => r.rps));
  console.log(
    `a p50 under 30 ms at c=${CONCURRENCY} needs about ${Math.ceil(CONCURRENCY / 0.03)} workflows/s; the best measured here is ${best.toFixed(0)}/s`,
  );
  worker.shutdown();
  await running;
  await native.close();
  await server.stop();
  rmSync(root, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
