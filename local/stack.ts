// `npm run dev`: the whole gateway on one machine. Embedded PostgreSQL (unless DATABASE_URL), the
// Temporal dev server with its Web UI (unless TEMPORAL_ADDRESS), the mock providers, the worker and
// the API. First start creates an organization, a default test project and a key. Ctrl-C stops all.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startApi } from '../api/server';
import { createApiKey } from '../domain/tenancy/api-keys';
import { createOrganization } from '../domain/tenancy/organizations';
import { startAllMocks } from '../providers/mocks';
import { loadConfig } from '../runtime/config';
import { openDatabase } from '../runtime/database';
import { migrate } from '../runtime/migrate';
import { requireProjectNode } from '../runtime/node-version';
import { startDevServer } from '../temporal-dev/dev-server';
import { startWorker } from '../worker/main';
import { sql } from 'slonik';
import { startEmbeddedPostgres } from './postgres';
import { persistentSecret } from './persistent-secret';
import { chainEnv, startLocalChain, type LocalChain } from '../chain/local-chain';

const say = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  requireProjectNode();
  const config = loadConfig();
  mkdirSync(config.dataDir, { recursive: true, mode: 0o755 });
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse())
      await stop().catch((error: Error) => say(`stop failed: ${error.message}`));
  };
  process.once('SIGINT', () => void stopAll().then(() => process.exit(0)));
  process.once('SIGTERM', () => void stopAll().then(() => process.exit(0)));

  // Test mode's local EVM chain for the x402 rail, started beside PostgreSQL and Temporal so it adds
  // nothing to start-up; live mode (X402_RPC_URL or X402_FACILITATOR_URL set) uses the configured chain.
  const chainStarting: Promise<LocalChain | undefined> =
    config.x402 || process.env.GATEWAY_LOCAL_CHAIN === 'off'
      ? Promise.resolve(undefined)
      : startLocalChain({ port: Number(process.env.GATEWAY_CHAIN_PORT ?? 8545) }).catch((error: Error) => {
          say(`local chain not started (the x402 rail stays off): ${error.message}`);
          return undefined;
        });
  try {
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      const postgres = await startEmbeddedPostgres({
        dataDir: path.join(config.dataDir, 'postgres'),
        port: Number(process.env.GATEWAY_POSTGRES_PORT ?? 54329),
        database: 'gateway',
        log: say,
      });
      stops.push(() => postgres.stop());
      databaseUrl = postgres.url;
    }
    let temporalAddress = config.temporal.address;
    let temporalUi = process.env.TEMPORAL_UI_URL ?? "(your Temporal cluster's UI)";
    if (!temporalAddress) {
      const temporal = await startDevServer({
        dataDir: path.join(config.dataDir, 'temporal'),
        port: Number(process.env.TEMPORAL_DEV_PORT ?? 7233),
        uiPort: Number(process.env.TEMPORAL_UI_PORT ?? 8233),
        namespace: config.temporal.namespace,
      });
      stops.push(() => temporal.stop());
      temporalAddress = temporal.address;
      temporalUi = temporal.uiUrl;
      config.temporal.uiUrl ??= temporal.uiUrl; // the console links stuck attempts to it
    }
    const mocks = await startAllMocks();
    stops.push(async () => void (await Promise.all(Object.values(mocks).map((mock) => mock.stop()))));
    // The mocks are the sandbox endpoints only: live ones stay unset (refused) unless configured.
    for (const [name, mock] of Object.entries(mocks)) config.providerUrls[name] ??= mock.url;

    config.serviceToken ??= persistentSecret(path.join(config.dataDir, 'service-token'), () =>
      randomBytes(32).toString('hex'),
    );
    const db = await openDatabase(databaseUrl, { maximumPoolSize: 2 });
    await migrate(db);
    const firstKey = await bootstrap(db, config.apiKeyPepper);
    await db.end();
    if (firstKey) writeFileSync(path.join(config.dataDir, 'dev-api-key'), `${firstKey}\n`, { mode: 0o600 });

    const chain = await chainStarting;
    if (chain) {
      stops.push(() => chain.stop());
      config.x402 = loadConfig({ ...process.env, ...chainEnv(chain) }).x402;
    }

    const worker = await startWorker({ config, databaseUrl, temporalAddress });
    stops.push(() => worker.stop());
    const api = await startApi({ config, databaseUrl, temporalAddress });
    stops.push(() => api.stop());

    const keyFile = path.join(config.dataDir, 'dev-api-key');
    const key = existsSync(keyFile)
      ? readFileSync(keyFile, 'utf8').trim()
      : '(created earlier; mint another with npm run admin -- create-key)';
    say('');
    say('Agent Payments Gateway is running');
    say(`  API            ${api.url}`);
    say(`  OpenAPI        ${api.url}/openapi.json`);
    say(`  Reference      ${api.url}/docs`);
    say(`  Temporal UI    ${temporalUi}`);
    say(`  Console        ${api.url}/console (sign in with the service token)`);
    say(`  API key        ${key}`);
    say(`  Service token  ${config.serviceToken}`);
    const mockWidth = Math.max(15, ...Object.keys(mocks).map((name) => name.length + 6));
    for (const [name, mock] of Object.entries(mocks)) say(`  ${`Mock ${name}`.padEnd(mockWidth)}${mock.url}`);
    if (chain) {
      say(`  Local chain    ${chain.rpcUrl} (chain id ${chain.chainId})`);
      say(`  Test USDC      ${chain.token.address} (buyers: accounts 1-18 of hardhat's test mnemonic)`);
    }
    say(`  Data           ${config.dataDir}`);
    say('');
    say(`Try: curl -H "Authorization: Bearer ${key}" ${api.url}/v1/whoami`);
    say('Ctrl-C stops everything; the next start keeps the data.');
  } catch (error) {
    say(`gateway failed to start: ${(error as Error).stack ?? String(error)}`);
    await stopAll();
    await (await chainStarting)?.stop();
    process.exit(1);
  }
}

/** On an empty database: one organization, its default test project and an unrestricted test key. */
async function bootstrap(
  db: Awaited<ReturnType<typeof openDatabase>>,
  pepper: string,
): Promise<string | undefined> {
  const hasOrg = await db.exists(sql.unsafe`SELECT 1 FROM organizations`);
  if (hasOrg) return undefined;
  const { project } = await createOrganization(db, { name: 'Local development', environment: 'test' });
  const { key } = await createApiKey(db, project, { name: 'dev' }, pepper);
  return key;
}

void main();
