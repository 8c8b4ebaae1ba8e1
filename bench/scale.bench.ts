// `npm run bench -- scale`: completed wallet-execute spends per second, with p50/p99, for N = 1, 2, 4
// worker processes and N API processes (behind the shared port) on the real Temporal server on
// PostgreSQL (cluster/), beside the empty-workflow floor of the same server. The load is closed-loop,
// 16 callers per API process, each spend a new attempt on one of 16 wallets. On a small machine the
// figures show correctness and overhead; on a larger one, whether adding processes adds throughput.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { sql } from 'slonik';
import { freeTemporalPorts } from '../cluster/ports';
import { startCluster } from '../cluster/stack';
import { startTemporalServer, type RunningTemporalServer } from '../cluster/temporal-server';
import { executeBodies, fundedWallets } from './support/wallets';
import { startEmbeddedPostgres } from '../local/postgres';
import { openDatabase } from '../runtime/database';
import { migrate } from '../runtime/migrate';
import { gatewayClient } from '../test/support/client';
import { freePort } from '../test/support/free-port';
import { quietLogger } from '../worker/bundle';
import { installRuntime } from '../worker/worker';
import { machineLine, runLoad, type LoadResult } from './support/load';
import { spawnRotating } from './support/spawn-rotating';

const SPENDS = Number(process.env.BENCH_SCALE_SPENDS ?? 300);
const SIZES = (process.env.BENCH_SCALE_SIZES ?? '1,2,4').split(',').map(Number);
const SHARDS = Number(process.env.TEMPORAL_HISTORY_SHARDS ?? 4);
const CALLERS_PER_API = 16;

interface Row {
  label: string;
  concurrency: number;
  completed: number;
  result: LoadResult;
}

async function floor(temporal: RunningTemporalServer, concurrency: number): Promise<Row> {
  const native = await NativeConnection.connect({ address: temporal.address });
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('./support/floor-workflows'),
    logger: quietLogger,
  });
  const worker = await Worker.create({ connection: native, taskQueue: 'floor', workflowBundle });
  const running = worker.run();
  const connection = await Connection.connect({ address: temporal.address });
  const client = new Client({ connection });
  let next = 0;
  const run = (label: string, total: number) =>
    runLoad(label, { total, concurrency }, async () => {
      await client.workflow.execute('emptyWorkflow', {
        taskQueue: 'floor',
        workflowId: `floor-${randomBytes(4).toString('hex')}-${next++}`,
      });
      return true;
    });
  await run('warmup', 50);
  const result = await run('empty workflow (floor)', SPENDS);
  worker.shutdown();
  await running;
  await connection.close();
  await native.close();
  return {
    label: 'empty workflow, worker in the bench',
    concurrency,
    completed: SPENDS - result.errors,
    result,
  };
}

async function main(): Promise<void> {
  installRuntime('ERROR');
  const root = mkdtempSync(path.join(os.tmpdir(), 'gateway-scale-'));
  chmodSync(root, 0o755);
  const postgres = await startEmbeddedPostgres({
    dataDir: path.join(root, 'postgres'),
    port: await freePort(),
    database: 'gateway',
  });
  const db = await openDatabase(postgres.url, { maximumPoolSize: 2 });
  await migrate(db);
  const temporal = await startTemporalServer({
    dataDir: path.join(root, 'temporal'),
    postgresUrl: postgres.adminUrl,
    historyShards: SHARDS,
    namespace: 'default',
    ports: await freeTemporalPorts(),
    log: (line) => console.error(line),
  });
  const rows: Row[] = [await floor(temporal, CALLERS_PER_API)];
  const serviceToken = randomBytes(24).toString('hex');

  for (const n of SIZES) {
    const cluster = await startCluster({
      dataDir: path.join(root, `cluster-${n}`),
      databaseUrl: postgres.url,
      temporal: { running: temporal },
      workers: n,
      apis: n,
      host: '127.0.0.1',
      port: 0,
      serviceToken,
      env: { LOG_LEVEL: 'error', DATABASE_POOL_SIZE: '20' },
      mocks: true,
    });
    try {
      const gateway = gatewayClient(cluster.url, serviceToken);
      const tenant = await gateway.createTenant();
      const wallets = await fundedWallets(gateway, tenant, 16, 'scale');
      const prefix = `scale-${n}-${randomBytes(3).toString('hex')}`;
      const bodies = (tag: string, count: number) => executeBodies(`${prefix}-${tag}`, count);
      const common = {
        url: wallets.map((w) => `${cluster.url}/v1/wallets/${w}/execute`),
        method: 'POST',
        headers: { Authorization: `Bearer ${tenant.key}` },
        concurrency: CALLERS_PER_API * n,
      };
      await spawnRotating({ ...common, label: 'warmup', bodies: bodies('warm', 50), total: 50 });
      const result = await spawnRotating({
        ...common,
        label: `${n} worker + ${n} API processes`,
        bodies: bodies('run', SPENDS),
        total: SPENDS,
      });
      // Counted in PostgreSQL, not from the answers: a spend counts only once its attempt completed.
      const completed = (await db.oneFirst(
        sql.unsafe`SELECT count(*)::int AS n FROM attempts WHERE family = 'wallet_execute' AND attempt_id LIKE ${`${prefix}-run-%`} AND status = 'completed'`,
      )) as number;
      rows.push({
        label: `wallet execute, ${n} worker + ${n} API processes`,
        concurrency: common.concurrency,
        completed,
        result,
      });
    } finally {
      await cluster.stop();
    }
  }

  console.log(machineLine());
  console.log(
    `Temporal server (real, PostgreSQL persistence, ${SHARDS} history shards) on ${os.cpus().length} cores; ${SPENDS} per run`,
  );
  console.log(
    `${'run'.padEnd(46)} ${'callers'.padStart(7)} ${'completed/s'.padStart(11)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)}  completed`,
  );
  for (const { label, concurrency, completed, result } of rows) {
    const perSecond = completed / result.seconds;
    console.log(
      `${label.padEnd(46)} ${String(concurrency).padStart(7)} ${perSecond.toFixed(0).padStart(11)} ${result.p50.toFixed(1).padStart(8)} ${result.p99.toFixed(1).padStart(8)}  ${completed}/${result.requests}`,
    );
  }
  await db.end();
  await temporal.stop();
  await postgres.stop();
  rmSync(root, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
