// `npm run cluster [-- --workers N --apis N --shards N]`: the gateway as production runs it, on one
// machine: embedded PostgreSQL, the real Temporal server on it (built once from the Go module proxy),
// the Temporal UI, the mock providers, N worker and N API processes sharing one port, each started again
// when it dies (printed here). Ctrl-C stops all, restarting nothing.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'slonik';
import { startEmbeddedPostgres } from '../local/postgres';
import { createApiKey } from '../domain/tenancy/api-keys';
import { createOrganization } from '../domain/tenancy/organizations';
import { loadConfig } from '../runtime/config';
import { openDatabase } from '../runtime/database';
import { migrate } from '../runtime/migrate';
import { requireProjectNode } from '../runtime/node-version';
import { PROJECT_ROOT } from '../runtime/project-root';
import { clusterSettings } from './settings';
import { startCluster } from './stack';
import { startTemporalUi } from './ui';
import { persistentSecret } from '../local/persistent-secret';

const say = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  requireProjectNode();
  const { values } = parseArgs({
    options: { workers: { type: 'string' }, apis: { type: 'string' }, shards: { type: 'string' } },
  });
  const settings = clusterSettings(process.env, values);
  const config = loadConfig();
  const dataDir = path.resolve(
    process.env.GATEWAY_CLUSTER_DATA_DIR ?? path.join(PROJECT_ROOT, '.cluster', 'data'),
  );
  mkdirSync(dataDir, { recursive: true, mode: 0o755 });
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse())
      await stop().catch((error: Error) => say(`stop failed: ${error.message}`));
  };
  process.once('SIGINT', () => void stopAll().then(() => process.exit(0)));
  process.once('SIGTERM', () => void stopAll().then(() => process.exit(0)));

  try {
    const postgres = await startEmbeddedPostgres({
      dataDir: path.join(dataDir, 'postgres'),
      port: settings.postgresPort,
      database: 'gateway',
      log: say,
    });
    stops.push(() => postgres.stop());
    const serviceToken =
      config.serviceToken ??
      persistentSecret(path.join(dataDir, 'service-token'), () => randomBytes(32).toString('hex'));
    const firstKey = await bootstrap(postgres.url, config.apiKeyPepper);
    if (firstKey) writeFileSync(path.join(dataDir, 'dev-api-key'), `${firstKey}\n`, { mode: 0o600 });

    const ui = await startTemporalUi({
      dataDir: path.join(dataDir, 'temporal-ui'),
      port: settings.uiPort,
      temporalAddress: `127.0.0.1:${settings.temporalPorts.frontend}`,
      log: say,
    });
    if (ui) stops.push(() => ui.stop());
    const cluster = await startCluster({
      dataDir,
      databaseUrl: postgres.url,
      temporal: {
        postgresUrl: postgres.adminUrl,
        historyShards: settings.historyShards,
        ports: settings.temporalPorts,
      },
      workers: settings.workers,
      apis: settings.apis,
      host: config.host,
      port: config.port,
      serviceToken,
      env: ui ? { TEMPORAL_UI_URL: ui.url } : {},
      mocks: true,
      log: say,
    });
    stops.push(() => cluster.stop());

    const keyFile = path.join(dataDir, 'dev-api-key');
    const key = existsSync(keyFile)
      ? readFileSync(keyFile, 'utf8').trim()
      : '(created earlier; mint another with npm run admin -- create-key)';
    say('');
    say(
      `Agent Payments Gateway is running: ${settings.apis} API and ${settings.workers} worker processes on a Temporal server`,
    );
    say(`  API            ${cluster.url}  (shared by ${cluster.apis.map((api) => api.url).join(', ')})`);
    say(`  OpenAPI        ${cluster.url}/openapi.json`);
    say(`  Reference      ${cluster.url}/docs`);
    say(
      `  Temporal       ${cluster.temporalAddress}  (${settings.historyShards} history shards, PostgreSQL ${postgres.url.replace(/\/[^/]*$/, '')})`,
    );
    say(`  Temporal UI    ${ui?.url ?? '(not available: the UI server could not be built)'}`);
    say(`  Console        ${cluster.url}/console (sign in with the service token)`);
    say(`  API key        ${key}`);
    say(`  Service token  ${serviceToken}`);
    say(
      `  Logs           ${path.join(dataDir, 'logs')}/{api,worker}-N.log, ${path.join(dataDir, 'temporal', 'temporal.log')}`,
    );
    say(`  Data           ${dataDir}`);
    say('');
    say(`Try: curl -H "Authorization: Bearer ${key}" ${cluster.url}/v1/whoami`);
    say('Ctrl-C stops everything; the next start keeps the data.');
  } catch (error) {
    say(`cluster failed to start: ${(error as Error).stack ?? String(error)}`);
    await stopAll();
    process.exit(1);
  }
}

/** On an empty database: one organization, its default test project and an unrestricted test key. */
async function bootstrap(databaseUrl: string, pepper: string): Promise<string | undefined> {
  const db = await openDatabase(databaseUrl, { maximumPoolSize: 2 });
  try {
    await migrate(db);
    if (await db.exists(sql.unsafe`SELECT 1 FROM organizations`)) return undefined;
    const { project } = await createOrganization(db, { name: 'Local cluster', environment: 'test' });
    return (await createApiKey(db, project, { name: 'dev' }, pepper)).key;
  } finally {
    await db.end();
  }
}

void main();
