// Starts a whole gateway for one test file: its own database (cloned from the migrated template),
// a Temporal server (the time-skipping test server, or the real dev server with `temporal: 'dev'`)
// with a real worker on the prebuilt bundle, and the HTTP API on a loopback port. Tests speak to it
// over real HTTP.
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { createApp } from '../../api/app';
import { keepAgentsAlive } from '../../api/listener';
import { KeyCache } from '../../api/auth/key-cache';
import { listenForRevocations } from '../../api/auth/revocations';
import { listenForAttemptEndings } from '../../api/attempt-endings';
import { listenForSessionClosings } from '../../domain/sessions/closings';
import { openSessionCache } from '../../domain/sessions/sessions';
import { afterAnswersSettled } from '../../api/after-answer';
import type { AppDeps } from '../../api/deps';
import { ensureDatabase } from '../../local/postgres';
import { loadConfig, type Config } from '../../runtime/config';
import { openDatabase, type DatabasePool } from '../../runtime/database';
import { createLogger } from '../../runtime/logger';
import { clientOver } from '../../runtime/temporal';
import { createWorker, installRuntime } from '../../worker/worker';
import { startEventDispatcher, type EventDispatcher } from '../../worker/event-dispatcher';
import { deliveryAttempts } from '../../activities/webhooks';
import { startAllMocks } from '../../providers/mocks';
import type { RunningMock } from '../../providers/mocks/running-mock';
import { gatewayClient, type GatewayClient } from './client';
import { TEMPLATE_DATABASE } from './global-setup';
import { SEARCH_ATTRIBUTE_FLAGS, SEARCH_ATTRIBUTES } from '../../contracts/search-attributes';
import { DEV_SERVER_DYNAMIC_CONFIG } from '../../temporal-dev/dev-server';
import { findTemporalBinary } from '../../temporal-dev/binaries';
import { chainEnv, startLocalChain, type LocalChain } from '../../chain/local-chain';
import { startX402FacilitatorMock } from '../../providers/mocks/x402-facilitator';

export type { HttpResult, Tenant } from './client';

export interface Gateway extends GatewayClient {
  url: string;
  db: DatabasePool;
  env: TestWorkflowEnvironment;
  config: Config;
  deps: AppDeps;
  serviceToken: string;
  taskQueue: string;
  /** The running mock providers by name; cast to the mock's own type for its controls. */
  mocks: Record<string, RunningMock>;
  /** The local EVM chain, with `chain: true`. */
  chain?: LocalChain;
  stopWorker(): Promise<void>;
  startWorker(): Promise<void>;
  stop(): Promise<void>;
}

export interface GatewayOptions {
  worker?: boolean;
  /** 'dev' runs `temporal server start-dev` as users run it (real clock, real update races); default time-skipping. */
  temporal?: TemporalKind;
  /** Start a local EVM chain with the EIP-3009 token and point the x402 rail at it. */
  chain?: boolean;
  /** With `chain`: settle x402 through a mock facilitator (itself settling on the chain) instead of directly. */
  x402Facilitator?: boolean;
}

export type TemporalKind = 'time-skipping' | 'dev';

/** Both servers, for suites that must hold on each: `describe.each(TEMPORAL_SERVERS)(...)`. */
export const TEMPORAL_SERVERS: TemporalKind[] = ['time-skipping', 'dev'];

async function startTemporal(kind: TemporalKind): Promise<TestWorkflowEnvironment> {
  if (kind === 'dev') {
    const cli = findTemporalBinary('cli');
    return TestWorkflowEnvironment.createLocal({
      server: {
        ...(cli ? { executable: { type: 'existing-path' as const, path: cli } } : {}),
        ip: '127.0.0.1',
        searchAttributes: Object.values(SEARCH_ATTRIBUTES),
        extraArgs: [
          ...DEV_SERVER_DYNAMIC_CONFIG.flatMap((value) => ['--dynamic-config-value', value]),
          '--log-level',
          'error',
        ],
      },
    });
  }
  const testServer = process.env.TEMPORAL_TEST_SERVER_PATH;
  const env = await TestWorkflowEnvironment.createTimeSkipping(
    testServer ? { server: { executable: { type: 'existing-path', path: testServer } } } : {},
  );
  // The test server knows no custom search attributes until they are registered, as the dev server does at start.
  const { INDEXED_VALUE_TYPE_KEYWORD, INDEXED_VALUE_TYPE_INT } = temporal.api.enums.v1.IndexedValueType;
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: Object.fromEntries(
      Object.entries(SEARCH_ATTRIBUTE_FLAGS).map(([name, type]) => [
        name,
        type === 'Int' ? INDEXED_VALUE_TYPE_INT : INDEXED_VALUE_TYPE_KEYWORD,
      ]),
    ),
  });
  return env;
}

export async function startGateway(options: GatewayOptions = {}): Promise<Gateway> {
  const adminUrl = process.env.TEST_DATABASE_ADMIN_URL;
  if (!adminUrl) throw new Error('TEST_DATABASE_ADMIN_URL is unset: run the tests through jest (npm test)');
  const database = `test_${randomBytes(6).toString('hex')}`;
  await ensureDatabase(adminUrl, database, TEMPLATE_DATABASE);
  const databaseUrl = adminUrl.replace(/\/[^/]*$/, `/${database}`);

  const serviceToken = randomBytes(24).toString('hex');
  const mocks = await startAllMocks();
  const chain = options.chain ? await startLocalChain() : undefined;
  if (chain && options.x402Facilitator) mocks.x402_facilitator = await startX402FacilitatorMock(chain);
  const config = loadConfig({
    ...process.env,
    ...(chain ? chainEnv(chain) : {}),
    ...(mocks.x402_facilitator ? { X402_FACILITATOR_URL: mocks.x402_facilitator.url } : {}),
    GATEWAY_SERVICE_TOKEN: serviceToken,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'error',
    DATABASE_URL: databaseUrl,
  });
  // The mocks are the sandbox endpoints; live ones stay unset unless a test starts its own live mock.
  for (const [name, mock] of Object.entries(mocks)) config.providerUrls[name] ??= mock.url;
  const db = await openDatabase(databaseUrl, { maximumPoolSize: 20 });
  const log = createLogger(config.logLevel);

  // The time-skipping server predates some capabilities the SDK asks for; its warnings are noise here.
  installRuntime('ERROR');
  const env = await startTemporal(options.temporal ?? 'time-skipping');
  const taskQueue = `gateway-test-${randomBytes(4).toString('hex')}`;
  const bundlePath = process.env.GATEWAY_WORKFLOW_BUNDLE;
  if (!bundlePath) throw new Error('GATEWAY_WORKFLOW_BUNDLE is unset: the jest global setup builds it');

  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  let dispatcher: EventDispatcher | undefined;
  const startWorker = async () => {
    worker = await createWorker({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      bundle: { codePath: bundlePath },
      deps: { db, log, config },
    });
    running = worker.run();
    // The worker process also runs the event dispatcher (outbox → first attempts and delivery workflows).
    dispatcher = await startEventDispatcher({
      databaseUrl,
      db,
      log,
      runtime: { client: env.client, taskQueue, settings: config.webhooks },
      attempt: deliveryAttempts({ db, log, config }).attemptLoaded,
    });
  };
  const stopWorker = async () => {
    await dispatcher?.stop();
    dispatcher = undefined;
    if (!worker) return;
    worker.shutdown();
    await running;
    worker = undefined;
  };
  if (options.worker !== false) await startWorker();

  const keyCache = new KeyCache();
  const revocations = await listenForRevocations(databaseUrl, keyCache, log);
  const closings = await listenForSessionClosings(databaseUrl, openSessionCache, log);
  const attemptEndings = await listenForAttemptEndings(databaseUrl, log);
  // The API gets a plain client on the test server's native connection, as the API process makes it. The
  // environment's own client (over grpc-js) unlocks time skipping whenever it awaits a result, and those
  // unlocks are counted: concurrent HTTP requests waiting on workflows would race on the lock and let
  // timers jump while activities run. Tests move the clock explicitly (env.sleep) or await results
  // through env.client.
  const apiClient = clientOver(env.nativeConnection, env.namespace ?? 'default');
  const deps: AppDeps = {
    db,
    config,
    log,
    temporal: { client: apiClient, taskQueue },
    keyCache,
    attemptEndings,
  };
  const server: Server = await new Promise((resolve) => {
    const listening = createApp(deps).listen(0, '127.0.0.1', () => resolve(listening));
  });
  keepAgentsAlive(server);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const client = gatewayClient(url, serviceToken);

  return {
    url,
    db,
    env,
    config,
    deps,
    serviceToken,
    taskQueue,
    mocks,
    chain,
    ...client,
    startWorker,
    stopWorker,
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await afterAnswersSettled(deps);
      await stopWorker();
      await revocations.stop();
      await closings.stop();
      await attemptEndings.stop();
      await env.teardown();
      await db.end();
      await Promise.all(Object.values(mocks).map((mock) => mock.stop()));
      await chain?.stop();
    },
  };
}
