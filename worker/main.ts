// Production entry for the worker process: polls the gateway task queue on TEMPORAL_ADDRESS and runs
// workflows from the prebuilt bundle with activities wired to DATABASE_URL and the providers. A Temporal
// server not reachable yet is waited for (retried with backoff, logged), not a reason to exit.
import { Client } from '@temporalio/client';
import { loadConfig } from '../runtime/config';
import { openDatabase } from '../runtime/database';
import { createLogger, type Logger } from '../runtime/logger';
import { connectWorkerWhenReachable } from '../runtime/temporal';
import { loadBundle } from './bundle';
import { deliveryAttempts } from '../activities/webhooks';
import { startEventDispatcher } from './event-dispatcher';
import { createWorker, installRuntime } from './worker';
import type { Config } from '../runtime/config';
import { readBacklogs } from '../domain/operations/backlogs';
import { scrape } from '../runtime/telemetry/metrics';
import { startMetricsServer, temporalSdkMetrics } from '../runtime/telemetry/metrics-server';
import { startTracing } from '../runtime/telemetry/tracing';

export interface RunningWorker {
  stop(): Promise<void>;
  done: Promise<void>;
}

export interface StartWorkerOptions {
  config?: Config;
  databaseUrl?: string;
  temporalAddress?: string;
  log?: Logger;
  /** Ends a start still waiting for the Temporal server (the start then rejects). */
  signal?: AbortSignal;
}

export async function startWorker(options: StartWorkerOptions = {}): Promise<RunningWorker> {
  const config = options.config ?? loadConfig();
  const log = options.log ?? createLogger(config.logLevel, { process: 'worker' });
  const databaseUrl = options.databaseUrl ?? config.databaseUrl;
  if (!databaseUrl) throw new Error('DATABASE_URL is required');
  installRuntime('WARN', config.metrics.temporalAddress);
  // Before the worker is made, so its activities and workflow sink export spans.
  const traces = startTracing({ serviceName: 'gateway-worker', otlpEndpoint: config.otlpEndpoint });
  const connection = await connectWorkerWhenReachable(
    config.temporal,
    options.temporalAddress ?? config.temporal.address ?? '127.0.0.1:7233',
    { log, signal: options.signal },
  ).catch(async (error: unknown) => {
    await traces?.shutdown();
    throw error;
  });
  const db = await openDatabase(databaseUrl, {
    maximumPoolSize: config.databasePoolSize,
    preparedStatements: config.databasePreparedStatements,
  });
  const worker = await createWorker({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    bundle: await loadBundle(),
    deps: { db, log, config },
  });
  // The dispatcher starts delivery workflows through the worker's own connection.
  const client = new Client({ connection, namespace: config.temporal.namespace });
  const dispatcher = await startEventDispatcher({
    databaseUrl,
    db,
    log,
    runtime: { client, taskQueue: config.temporal.taskQueue, settings: config.webhooks, eagerStart: true },
    attempt: deliveryAttempts({ db, log, config }).attemptLoaded,
  });
  const metrics =
    config.metrics.workerPort === undefined
      ? undefined
      : await startMetricsServer({
          host: config.metrics.host,
          port: config.metrics.workerPort,
          text: async () =>
            `${await scrape({ db, backlogs: readBacklogs })}\n${await temporalSdkMetrics(config.metrics.temporalAddress)}`,
          onError: (error) => log.error('metrics scrape failed', { error: error.message }),
        });
  const done = worker.run().finally(async () => {
    await metrics?.stop();
    await dispatcher.stop();
    await connection.close();
    await db.end();
    await traces?.shutdown();
  });
  return {
    done,
    async stop() {
      // The SDK shuts its workers down on SIGINT itself; a second stop only waits for the first.
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}

if (require.main === module) {
  // Listening from the start: a stop while the first connection is still retried ends that wait (the
  // SDK's own signal handling has no worker to shut down yet).
  const starting = new AbortController();
  let running: RunningWorker | undefined;
  const stop = () => {
    if (running) void running.stop().then(() => process.exit(0));
    else starting.abort();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  startWorker({ signal: starting.signal })
    .then((worker) => {
      running = worker;
      if (starting.signal.aborted) return stop();
      process.stderr.write('gateway worker polling\n');
    })
    .catch((error: Error) => {
      if (starting.signal.aborted) process.exit(0);
      process.stderr.write(`gateway worker failed to start: ${error.stack ?? error.message}\n`);
      process.exit(1);
    });
}
