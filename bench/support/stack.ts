// A whole gateway for benchmarks, as production runs it but on one machine: embedded PostgreSQL
// (durable settings), `temporal server start-dev`, a real worker and the API in this process, and the mock
// providers on loopback in a process of their own (or in this one, for a bench that reads their state), so
// this process's CPU is the API's and the worker's alone.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Server } from 'node:http';
import { createApp } from '../../api/app';
import { keepAgentsAlive } from '../../api/listener';
import { KeyCache } from '../../api/auth/key-cache';
import { listenForAttemptEndings } from '../../api/attempt-endings';
import { listenForSessionClosings } from '../../domain/sessions/closings';
import { openSessionCache } from '../../domain/sessions/sessions';
import type { AppDeps } from '../../api/deps';
import { startEmbeddedPostgres } from '../../local/postgres';
import { startAllMocks } from '../../providers/mocks';
import type { RunningMock } from '../../providers/mocks/running-mock';
import { startChildMocks } from './child-mocks';
import { loadConfig, type Config } from '../../runtime/config';
import { openDatabase, type DatabasePool } from '../../runtime/database';
import { createLogger } from '../../runtime/logger';
import { migrate } from '../../runtime/migrate';
import { connectClient } from '../../runtime/temporal';
import { startDevServer } from '../../temporal-dev/dev-server';
import { afterAnswersSettled } from '../../api/after-answer';
import { startWorker } from '../../worker/main';
import { freePort } from '../../test/support/free-port';
import { gatewayClient, type GatewayClient } from '../../test/support/client';

export interface BenchStack extends GatewayClient {
  url: string;
  db: DatabasePool;
  config: Config;
  deps: AppDeps;
  serviceToken: string;
  /** The mocks, when they run in this process (`mocksInProcess`); else empty. */
  mocks: Record<string, RunningMock>;
  /** The stack's Temporal dev server: where a bench starts its own workflows and reads the server's CPU. */
  temporal: { address: string; pid: number };
  stop(): Promise<void>;
}

export async function startBenchStack(
  options: { poolSize?: number; mocksInProcess?: boolean } = {},
): Promise<BenchStack> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'gateway-bench-'));
  chmodSync(root, 0o755);
  const postgres = await startEmbeddedPostgres({
    dataDir: path.join(root, 'postgres'),
    port: await freePort(),
    database: 'gateway',
  });
  const temporal = await startDevServer({
    dataDir: path.join(root, 'temporal'),
    port: await freePort(),
    uiPort: await freePort(),
    namespace: 'default',
  });
  const mocks = options.mocksInProcess ? await startAllMocks() : {};
  const child = options.mocksInProcess ? undefined : await startChildMocks();
  const mockUrls =
    child?.urls ?? Object.fromEntries(Object.entries(mocks).map(([name, mock]) => [name, mock.url]));
  const serviceToken = randomBytes(24).toString('hex');
  const config = loadConfig({
    ...process.env,
    GATEWAY_SERVICE_TOKEN: serviceToken,
    LOG_LEVEL: 'error',
    DATABASE_URL: postgres.url,
    TEMPORAL_ADDRESS: temporal.address,
    DATABASE_POOL_SIZE: String(options.poolSize ?? 20),
  });
  for (const [name, url] of Object.entries(mockUrls)) config.providerUrls[name] ??= url;
  const db = await openDatabase(postgres.url, { maximumPoolSize: config.databasePoolSize });
  await migrate(db);
  const worker = await startWorker({ config, databaseUrl: postgres.url, temporalAddress: temporal.address });
  // The API's client as the API process makes it (after the worker, whose Temporal runtime it shares).
  const client = await connectClient(config.temporal, temporal.address);
  const log = createLogger('error');
  // As an API process runs: closed sessions are heard, so the open ones may answer from memory.
  const closings = await listenForSessionClosings(postgres.url, openSessionCache, log);
  const attemptEndings = await listenForAttemptEndings(postgres.url, log);
  const deps: AppDeps = {
    db,
    config,
    log,
    keyCache: new KeyCache(),
    attemptEndings,
    temporal: { client, taskQueue: config.temporal.taskQueue },
  };
  const server: Server = await new Promise((resolve) => {
    const listening = createApp(deps).listen(0, '127.0.0.1', () => resolve(listening));
  });
  keepAgentsAlive(server);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    db,
    config,
    deps,
    serviceToken,
    mocks,
    temporal: { address: temporal.address, pid: temporal.pid },
    ...gatewayClient(url, serviceToken),
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await afterAnswersSettled(deps);
      await closings.stop();
      await attemptEndings.stop();
      await worker.stop();
      await client.connection.close();
      await db.end();
      await Promise.all(Object.values(mocks).map((mock) => mock.stop()));
      await child?.stop();
      await temporal.stop();
      await postgres.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
