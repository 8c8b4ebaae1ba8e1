// Production entry for the API process: connects to DATABASE_URL and TEMPORAL_ADDRESS, applies
// migrations, and serves HTTP. Scales independently of the worker.
import { loadConfig } from '../runtime/config';
import { openDatabase } from '../runtime/database';
import { createLogger } from '../runtime/logger';
import { migrate } from '../runtime/migrate';
import { ensureOAuthSweepSchedule } from '../orchestration/oauth-sweep-schedule';
import { ensureMoneySchedules } from '../orchestration/money-schedules';
import { connectClient } from '../runtime/temporal';
import { createApp } from './app';
import { keepAgentsAlive } from './listener';
import { KeyCache } from './auth/key-cache';
import { listenForRevocations } from './auth/revocations';
import { listenForAttemptEndings } from './attempt-endings';
import { listenForSessionClosings } from '../domain/sessions/closings';
import { openSessionCache } from '../domain/sessions/sessions';
import { afterAnswersSettled } from './after-answer';
import type { AppDeps } from './deps';
import { readBacklogs } from '../domain/operations/backlogs';
import { scrape } from '../runtime/telemetry/metrics';
import { startMetricsServer } from '../runtime/telemetry/metrics-server';
import { startTracing } from '../runtime/telemetry/tracing';

export interface RunningApi {
  url: string;
  stop(): Promise<void>;
}

export async function startApi(
  overrides: Partial<AppDeps> & { databaseUrl?: string; temporalAddress?: string } = {},
): Promise<RunningApi> {
  const config = overrides.config ?? loadConfig();
  const log = overrides.log ?? createLogger(config.logLevel, { process: 'api' });
  const databaseUrl = overrides.databaseUrl ?? config.databaseUrl;
  if (!databaseUrl)
    throw new Error('DATABASE_URL is required (npm run dev starts an embedded PostgreSQL and sets it)');
  // Before the Temporal client is made, so its calls carry the trace.
  const traces = startTracing({ serviceName: 'gateway-api', otlpEndpoint: config.otlpEndpoint });
  const db = await openDatabase(databaseUrl, {
    maximumPoolSize: config.databasePoolSize,
    preparedStatements: config.databasePreparedStatements,
  });
  await migrate(db);
  const client = await connectClient(
    config.temporal,
    overrides.temporalAddress ?? config.temporal.address ?? '127.0.0.1:7233',
  );
  // Housekeeping must not keep the API from serving: a failure here is logged and retried at the next start.
  await ensureOAuthSweepSchedule(client, config.temporal.taskQueue).catch((error: Error) =>
    log.warn('OAuth sweep schedule not ensured', { error: error.message }),
  );
  await ensureMoneySchedules(client, config.temporal.taskQueue).catch((error: Error) =>
    log.warn('Money schedules not ensured', { error: error.message }),
  );
  const keyCache = new KeyCache();
  const revocations = await listenForRevocations(databaseUrl, keyCache, log);
  const closings = await listenForSessionClosings(databaseUrl, openSessionCache, log);
  const attemptEndings = await listenForAttemptEndings(databaseUrl, log);
  const deps: AppDeps = {
    db,
    config,
    log,
    keyCache,
    attemptEndings,
    temporal: { client, taskQueue: config.temporal.taskQueue },
  };
  const metrics =
    config.metrics.apiPort === undefined
      ? undefined
      : await startMetricsServer({
          host: config.metrics.host,
          port: config.metrics.apiPort,
          text: () => scrape({ db, backlogs: readBacklogs }),
          onError: (error) => log.error('metrics scrape failed', { error: error.message }),
        });
  const server = createApp(deps).listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  keepAgentsAlive(server);
  return {
    url: `http://${config.host}:${port}`,
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await closed;
      await metrics?.stop();
      await revocations.stop();
      await closings.stop();
      await attemptEndings.stop();
      await afterAnswersSettled(deps);
      await client.connection.close();
      await db.end();
      await traces?.shutdown();
    },
  };
}

if (require.main === module) {
  startApi()
    .then((api) => {
      process.stderr.write(`gateway api listening on ${api.url}\n`);
      const stop = () => void api.stop().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    })
    .catch((error: Error) => {
      process.stderr.write(`gateway api failed to start: ${error.stack ?? error.message}\n`);
      process.exit(1);
    });
}
