// Production entry for the worker process: polls the gateway task queue on TEMPORAL_ADDRESS and runs
// workflows from the prebuilt bundle with activities wired to DATABASE_URL and the providers.
import { Client } from '@temporalio/client';
import { loadConfig } from '../runtime/config';
import { openDatabase } from '../runtime/database';
import { createLogger } from '../runtime/logger';
import { connectWorker } from '../runtime/temporal';
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

export async function startWorker(
  options: { config?: Config; databaseUrl?: string; temporalAddress?: string } = {},
): Promise<RunningWorker> {
  const config = options.config ?? loadConfig();
  const log = createLogger(config.logLevel, { process: 'worker' });
  const databaseUrl = options.databaseUrl ?? config.databaseUrl;
  if (!databaseUrl) throw new Error('DATABASE_URL is required');
  installRuntime('WARN', config.metrics.temporalAddress);
  // Before the worker is made, so its activities and workflow sink export spans.
  const traces = startTracing({ serviceName: 'gateway-worker', otlpEndpoint: config.otlpEndpoint });
  const db = await openDatabase(databaseUrl, { maximumPoolSize: config.databasePoolSize });
  const connection = await connectWorker(
    config.temporal,
    options.temporalAddress ?? config.temporal.address ?? '127.0.0.1:7233',
  );
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
  startWorker()
    .then((running) => {
      process.stderr.write('gateway worker polling\n');
      const stop = () => void running.stop().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    })
    .catch((error: Error) => {
      process.stderr.write(`gateway worker failed to start: ${error.stack ?? error.message}\n`);
      process.exit(1);
    });
}
