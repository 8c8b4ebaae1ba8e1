// Runs the test stack on its own, outside jest, for replaying a fuzz failure by hand:
// `npx tsx test/fuzz/serve.ts` prints the API URL and a tenant's key, and stops on Ctrl-C.
import path from 'node:path';
import globalSetup from '../support/global-setup';
import globalTeardown from '../support/global-teardown';
import { startGateway } from '../support/harness';

async function main(): Promise<void> {
  process.env.LOG_LEVEL ??= 'error';
  // As jest would for a run of the fuzz file alone: no browser tests, so no Chromium needed.
  await globalSetup({ rootDir: path.resolve(__dirname, '..', '..'), testPathPattern: 'test/fuzz' });
  const gw = await startGateway();
  const tenant = await gw.createTenant();
  process.stdout.write(
    `${JSON.stringify({ url: gw.url, key: tenant.key, projectId: tenant.projectId, orgId: tenant.orgId })}\n`,
  );
  const stop = async () => {
    await gw.stop();
    await globalTeardown();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

void main();
