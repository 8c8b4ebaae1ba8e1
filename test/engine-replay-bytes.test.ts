// Byte-exact replays (spec rule 1): a settled attempt presented again answers the bytes it sent the first
// time, from any API process. A second API instance on the same database (its own pool, so its settled-reply
// cache is cold) must send exactly what the first instance sent; PostgreSQL's jsonb reorders keys, so a
// reply rebuilt from a jsonb column would differ.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createApp } from '../api/app';
import { KeyCache } from '../api/auth/key-cache';
import { openDatabase, type DatabasePool } from '../runtime/database';
import { pixSpend, readyConsumer } from './support/consumer-spend';
import { gatewayClient, type GatewayClient } from './support/client';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { fund, newWallet } from './support/money';

let gw: Gateway;
let tenant: Tenant;
let second: { client: GatewayClient; server: Server; db: DatabasePool };

/** Another API process on the same database and Temporal: nothing it holds in memory was seen by the first. */
async function secondInstance(): Promise<typeof second> {
  const db = await openDatabase(gw.config.databaseUrl!, { maximumPoolSize: 4 });
  const server: Server = await new Promise((resolve) => {
    const listening = createApp({ ...gw.deps, db, keyCache: new KeyCache() }).listen(0, '127.0.0.1', () =>
      resolve(listening),
    );
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { client: gatewayClient(url, gw.serviceToken), server, db };
}

beforeAll(async () => {
  gw = await startGateway();
  tenant = await gw.createTenant();
  second = await secondInstance();
});
afterAll(async () => {
  if (second) {
    const closed = new Promise<void>((resolve) => second.server.close(() => resolve()));
    second.server.closeAllConnections();
    await closed;
    await second.db.end();
  }
  await gw?.stop();
});

describe('a consumer spend presented again', () => {
  it("answers the first reply's exact bytes (only idempotent_replay turned true) from a cold API process and then warm", async () => {
    const c = await readyConsumer(gw, tenant, { fundMinor: 10_000 });
    const body = pixSpend(c, { amount_minor: 1_000, payee: 'zeta@example.com' });
    const first = await gw.request('POST', '/v1/consumer-payments/execute', { key: tenant.key, body });
    expect([first.status, first.body.idempotent_replay]).toEqual([200, false]);
    const expected = first.text.replace('"idempotent_replay":false', '"idempotent_replay":true');
    const cold = await second.client.request('POST', '/v1/consumer-payments/execute', {
      key: tenant.key,
      body,
    });
    const warm = await second.client.request('POST', '/v1/consumer-payments/execute', {
      key: tenant.key,
      body,
    });
    const own = await gw.request('POST', '/v1/consumer-payments/execute', { key: tenant.key, body });
    for (const replay of [cold, warm, own]) {
      expect([replay.status, replay.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
      expect(replay.text).toBe(expected);
    }
  });

  it("answers a refusal's exact bytes the same way", async () => {
    const c = await readyConsumer(gw, tenant);
    const body = pixSpend(c, { amount_minor: 999_999_999 });
    const first = await gw.request('POST', '/v1/consumer-payments/execute', { key: tenant.key, body });
    expect(first.status).toBeGreaterThanOrEqual(400);
    expect(first.status).toBeLessThan(500);
    const expected = first.text.replace('"idempotent_replay":false', '"idempotent_replay":true');
    const cold = await second.client.request('POST', '/v1/consumer-payments/execute', {
      key: tenant.key,
      body,
    });
    expect([cold.status, cold.headers.get('idempotent-replayed')]).toEqual([first.status, 'true']);
    expect(cold.text).toBe(expected);
  });
});

describe('a wallet execute presented again', () => {
  it("answers the first reply's exact bytes from a cold API process and then warm", async () => {
    const wallet = await newWallet(gw, tenant);
    await fund(gw, tenant, wallet, 5_000);
    const body = {
      amount: 12.34,
      currency: 'BRL',
      recipient: 'merchant-42',
      description: 'Office supplies',
      mandate_id: 'mdt_test',
      purpose: 'supplies',
      attempt_id: `att-bytes-${Date.now()}`,
    };
    const first = await gw.request('POST', `/v1/wallets/${wallet}/execute`, { key: tenant.key, body });
    expect(first.status).toBe(200);
    const cold = await second.client.request('POST', `/v1/wallets/${wallet}/execute`, {
      key: tenant.key,
      body,
    });
    const warm = await second.client.request('POST', `/v1/wallets/${wallet}/execute`, {
      key: tenant.key,
      body,
    });
    for (const replay of [cold, warm]) {
      expect([replay.status, replay.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
      expect(replay.text).toBe(first.text);
    }
  });
});
