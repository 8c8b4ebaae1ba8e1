// The admin command: the operator operations from a shell, against the same database as the API.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { startGateway, type Gateway } from './support/harness';
import { sealTestReceipt } from './support/receipt-factory';

const run = promisify(execFile);
let gw: Gateway;
beforeAll(async () => {
  gw = await startGateway({ worker: false });
});
afterAll(async () => {
  await gw?.stop();
});

async function admin(...args: string[]): Promise<string> {
  const script = path.join(__dirname, '..', 'local', 'admin.ts');
  const { stdout } = await run(process.execPath, [require.resolve('tsx/cli'), script, ...args], {
    env: {
      ...process.env,
      DATABASE_URL: gw.config.databaseUrl,
      GATEWAY_API_KEY_PEPPER: gw.config.apiKeyPepper,
    },
  });
  return stdout.trim();
}

it('creates an organization and a key that the API then accepts, and revokes it', async () => {
  const org = JSON.parse(await admin('create-org', '--name', 'Shell Co', '--environment', 'live'));
  expect(org.project.environment).toBe('live');
  const key = JSON.parse(
    await admin(
      'create-key',
      '--project',
      org.project.id,
      '--name',
      'deploy',
      '--scopes',
      'sessions:read,servers:read',
    ),
  );
  expect(key.key).toMatch(/^csk_live_[0-9A-Za-z]{32}$/);
  const whoami = await gw.request('GET', '/v1/whoami', { key: key.key });
  expect(whoami.status).toBe(200);
  expect(whoami.body.key.scopes).toEqual(['sessions:read', 'servers:read']);
  const listed = await admin('list-keys', '--project', org.project.id);
  expect(listed).toContain(key.id);
  expect(listed).not.toContain(key.key);
  await admin('revoke-key', '--id', key.id);
  // Another process revoked it: this API process hears the NOTIFY and drops the key it had cached.
  let status = 200;
  for (let i = 0; i < 50 && status === 200; i++) {
    status = (await gw.request('GET', '/v1/whoami', { key: key.key })).status;
    if (status === 200) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(status).toBe(401);
}, 60_000);

it('rotates the receipt signing key: receipts sealed afterwards carry the new kid and every key stays published', async () => {
  const tenant = await gw.createTenant();
  const consumer = await gw.request('POST', '/v1/consumers', {
    key: tenant.key,
    body: { display_name: 'Rotation consumer' },
  });
  expect(
    (await gw.request('POST', `/v1/consumers/${consumer.body.id}/receipt-secret`, { key: tenant.key }))
      .status,
  ).toBe(201);
  const before = await sealTestReceipt(gw, tenant, consumer.body.id);
  const oldKid = before!.ed25519_kid;
  const rotated = JSON.parse(await admin('rotate-receipt-key'));
  expect(rotated).toEqual({
    kid: expect.stringMatching(/^rsk_/),
    public_key: expect.any(String),
    retired: [oldKid],
  });
  const after = await sealTestReceipt(gw, tenant, consumer.body.id);
  expect(after!.ed25519_kid).toBe(rotated.kid);
  const published = (await gw.request('GET', '/v1/receipts/signing-keys', { key: tenant.key })).body.keys;
  expect(
    published.map((k: { kid: string; retired_at: string | null }) => [k.kid, k.retired_at === null]),
  ).toEqual([
    [oldKid, false],
    [rotated.kid, true],
  ]);
  expect(await admin('list-keys', '--project', tenant.projectId)).not.toContain(rotated.public_key);
}, 60_000);

it('exits 2 with usage on a bad command line', async () => {
  await expect(admin('create-key', '--name', 'x')).rejects.toMatchObject({ code: 2 });
}, 30_000);
