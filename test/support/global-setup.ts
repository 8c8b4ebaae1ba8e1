// Once per test run: the project's Node checked, Chromium for the browser tests and the KMS test server
// for the vault tests (found or installed), a
// throwaway PostgreSQL with a migrated template database, the Temporal test server binary located (or
// installed), and the workflow bundle built. Test files read these from env.
import { chmodSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres, ensureDatabase } from '../../local/postgres';
import { openDatabase } from '../../runtime/database';
import { migrate } from '../../runtime/migrate';
import { nodeVersionProblem } from '../../runtime/node-version';
import { findTemporalBinary } from '../../temporal-dev/binaries';
import { buildBundleFile } from '../../worker/bundle';
import { ensureMotoServer } from '../../local/kms-server';
import { provisionChromium, runIncludesBrowserTests } from './browser';
import { runIncludes } from './run-includes';
import { freePort } from './free-port';

export const TEMPLATE_DATABASE = 'gateway_template';

interface JestGlobalConfig {
  rootDir: string;
  testPathPattern?: string;
}

export default async function globalSetup(globalConfig: JestGlobalConfig): Promise<void> {
  const olderNode = nodeVersionProblem(process.versions.node);
  if (olderNode) throw new Error(olderNode);
  // First, so a machine without Chromium learns it in one line before anything starts.
  if (runIncludesBrowserTests(globalConfig.rootDir, globalConfig.testPathPattern)) {
    process.env.CHROMIUM_PATH = provisionChromium((line) => process.stdout.write(`\n${line}\n`));
  }
  // The KMS test server (moto, from PyPI on first use) is installed here, where no hook timeout runs: a
  // slow package index must not time out the vault tests' setup, whose install would block its worker.
  if (runIncludes(globalConfig.rootDir, globalConfig.testPathPattern, ['test/vault.test.ts']))
    ensureMotoServer();
  const root = mkdtempSync(path.join(os.tmpdir(), 'gateway-test-'));
  chmodSync(root, 0o755); // the unprivileged PostgreSQL user must reach its data directory inside
  (globalThis as Record<string, unknown>).__gatewayTestRoot = root;
  let adminUrl = process.env.TEST_DATABASE_ADMIN_URL;
  if (!adminUrl) {
    const postgres = await startEmbeddedPostgres({
      dataDir: path.join(root, 'postgres'),
      port: await freePort(),
      database: 'postgres',
      durable: false,
    });
    adminUrl = postgres.adminUrl;
    (globalThis as Record<string, unknown>).__gatewayPostgres = postgres;
  }
  await ensureDatabase(adminUrl, TEMPLATE_DATABASE);
  const templateUrl = adminUrl.replace(/\/[^/]*$/, `/${TEMPLATE_DATABASE}`);
  const pool = await openDatabase(templateUrl, { maximumPoolSize: 1 });
  await migrate(pool);
  await pool.end();

  const testServer = findTemporalBinary('testServer');
  if (testServer) process.env.TEMPORAL_TEST_SERVER_PATH = testServer;
  process.env.TEST_DATABASE_ADMIN_URL = adminUrl;
  process.env.GATEWAY_WORKFLOW_BUNDLE = await buildBundleFile(path.join(root, 'workflow-bundle.js'));
}
