// A gateway deployment on one machine shaped like production: the real Temporal server on PostgreSQL,
// N worker processes and N API processes behind one shared port, each started again when it dies.
// `npm run cluster`, the cluster tests and the scale bench all start it through here; the caller owns
// PostgreSQL and the gateway database.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { buildBundleFile, PREBUILT_BUNDLE } from '../worker/bundle';
import { startAllMocks } from '../providers/mocks';
import type { RunningMock } from '../providers/mocks/running-mock';
import { startGatewayProcess, type GatewayProcess } from './processes';
import { startProxy } from './proxy';
import {
  startTemporalServer,
  type RunningTemporalServer,
  type TemporalServerOptions,
} from './temporal-server';

export interface ClusterOptions {
  /** Config files, the Temporal log and each process's log (logs/<name>.log). */
  dataDir: string;
  /** The gateway's database. */
  databaseUrl: string;
  /** A Temporal server already running (the bench keeps one across rounds), or how to start one here. */
  temporal: { running: RunningTemporalServer } | Omit<TemporalServerOptions, 'dataDir' | 'namespace' | 'log'>;
  workers: number;
  apis: number;
  /** The shared API port (0 for any) and each API process's own loopback ports (0 for any). */
  host: string;
  port: number;
  apiPorts?: number[];
  serviceToken: string;
  /** Settings every gateway process gets on top of this process's environment. */
  env?: NodeJS.ProcessEnv;
  /** Start the mock providers here and point the processes at them (npm run cluster, tests, bench). */
  mocks: boolean;
  /** Progress lines, and each restart of a process that died (on stderr when absent). */
  log?: (line: string) => void;
}

export interface RunningCluster {
  url: string;
  temporalAddress: string;
  temporalPid: number;
  apis: GatewayProcess[];
  workers: GatewayProcess[];
  mocks: Record<string, RunningMock>;
  stop(): Promise<void>;
}

// One bundle for every worker process: built in memory, it would cost each process a webpack run.
async function workflowBundle(dataDir: string): Promise<string> {
  if (process.env.GATEWAY_WORKFLOW_BUNDLE) return process.env.GATEWAY_WORKFLOW_BUNDLE;
  if (existsSync(PREBUILT_BUNDLE)) return PREBUILT_BUNDLE;
  return buildBundleFile(path.join(dataDir, 'workflow-bundle.js'));
}

export async function startCluster(options: ClusterOptions): Promise<RunningCluster> {
  const log = options.log ?? (() => undefined);
  const restartLog = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const stops: Array<() => Promise<void>> = [];
  const supervised: GatewayProcess[] = [];
  const stopAll = async () => {
    // Before anything stops: a process that exits from here on (the terminal's Ctrl-C reaches every
    // child at once) is not started again while the others are being stopped.
    for (const gateway of supervised) gateway.endSupervision();
    for (const stop of stops.splice(0).reverse())
      await stop().catch((error: Error) => log(`stop failed: ${error.message}`));
  };
  try {
    const namespace = options.env?.TEMPORAL_NAMESPACE ?? process.env.TEMPORAL_NAMESPACE ?? 'default';
    let temporal: RunningTemporalServer;
    if ('running' in options.temporal) {
      temporal = options.temporal.running;
    } else {
      temporal = await startTemporalServer({
        ...options.temporal,
        dataDir: path.join(options.dataDir, 'temporal'),
        namespace,
        log,
      });
      stops.push(() => temporal.stop());
    }
    const mocks = options.mocks ? await startAllMocks() : {};
    stops.push(async () => void (await Promise.all(Object.values(mocks).map((mock) => mock.stop()))));
    const bundle = await workflowBundle(options.dataDir);

    const env: NodeJS.ProcessEnv = {
      LOG_LEVEL: 'warn',
      ...Object.fromEntries(
        Object.entries(mocks).map(([name, mock]) => [`PROVIDER_${name.toUpperCase()}_URL`, mock.url]),
      ),
      ...options.env,
      DATABASE_URL: options.databaseUrl,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: namespace,
      GATEWAY_SERVICE_TOKEN: options.serviceToken,
      GATEWAY_WORKFLOW_BUNDLE: bundle,
    };
    const logDir = path.join(options.dataDir, 'logs');
    const started = await Promise.allSettled(
      Array.from({ length: options.workers }, (_, i) =>
        startGatewayProcess('worker', `worker-${i + 1}`, env, logDir, restartLog),
      ),
    );
    const workers: GatewayProcess[] = [];
    for (const result of started) {
      if (result.status === 'rejected') continue;
      workers.push(result.value);
      supervised.push(result.value);
      stops.push(() => result.value.stop());
    }
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    // One at a time: each API process migrates and ensures the schedules at start, and the first does the work.
    const apis: GatewayProcess[] = [];
    for (let i = 0; i < options.apis; i++) {
      const api = await startGatewayProcess(
        'api',
        `api-${i + 1}`,
        { ...env, HOST: '127.0.0.1', PORT: String(options.apiPorts?.[i] ?? 0) },
        logDir,
        restartLog,
      );
      apis.push(api);
      supervised.push(api);
      stops.push(() => api.stop());
    }
    const proxy = await startProxy(
      options.host,
      options.port,
      apis.map((api) => {
        const url = new URL(api.url!);
        return { host: url.hostname, port: Number(url.port) };
      }),
    );
    stops.push(() => proxy.stop());
    return {
      url: proxy.url,
      temporalAddress: temporal.address,
      temporalPid: temporal.pid,
      apis,
      workers,
      mocks,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
