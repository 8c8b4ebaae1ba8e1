// The vault's key services: KMS (against moto's KMS-compatible server on loopback, installed from PyPI
// by local/kms-server.ts) and local versioned keys. Envelope sealing binds the encryption context,
// KMS refuses a wrapped key under another context, and key rotation re-wraps while every row stays readable.
import { CreateKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { randomBytes } from 'node:crypto';
import { sql } from 'slonik';
import { z } from 'zod';
import { startKmsServer, type RunningKmsServer } from '../local/kms-server';
import { getConnection, openCredential } from '../domain/providers/connections';
import { connectionContext, openSecret, sealSecret } from '../domain/vault/envelope';
import { KmsKeyService } from '../domain/vault/kms-key-service';
import { SealBroken } from '../domain/vault/key-service';
import { keyServiceFor } from '../domain/vault/select';
import { ConfigError, loadConfig, type KmsSettings, type VaultSettings } from '../runtime/config';
import { API_KEY_SANDBOX } from '../providers/mocks/auth-api-key';
import { startGateway, type Gateway, type Tenant } from './support/harness';

const credentials = { accessKeyId: 'testing', secretAccessKey: 'testing' };
let kms: RunningKmsServer;
let gw: Gateway;
let t: Tenant;

async function newKmsKey(endpoint: string): Promise<string> {
  const client = new KMSClient({ region: 'us-east-1', endpoint, credentials });
  const created = await client.send(new CreateKeyCommand({ Description: 'gateway vault test key' }));
  return created.KeyMetadata!.KeyId!;
}

beforeAll(async () => {
  kms = await startKmsServer();
  gw = await startGateway({ worker: false });
  t = await gw.createTenant();
}, 300_000);
afterAll(async () => {
  await gw?.stop();
  await kms?.stop();
});

const connect = (credentialsBody: Record<string, string>) =>
  gw.request('POST', '/v1/providers/pix-psp/connections', {
    key: t.key,
    body: { credentials: credentialsBody },
  });

describe('KMS key service', () => {
  it('seals and opens a secret with a KMS data key, and refuses it under another context', async () => {
    const settings: KmsSettings = {
      keyId: await newKmsKey(kms.endpoint),
      region: 'us-east-1',
      endpoint: kms.endpoint,
      credentials,
    };
    const keys = new KmsKeyService(settings);
    const context = connectionContext('org_a', 'prj_a', 'conn_a');
    const sealed = await sealSecret(keys, context, { api_key: 'pk_sealed_by_kms_000000000' });
    expect(sealed.keyRef).toBe(`kms:${settings.keyId}`);
    expect(await openSecret(keys, context, sealed)).toEqual({ api_key: 'pk_sealed_by_kms_000000000' });
    await expect(
      openSecret(keys, connectionContext('org_a', 'prj_a', 'conn_b'), sealed),
    ).rejects.toBeInstanceOf(SealBroken);
    await expect(
      openSecret(keys, connectionContext('org_b', 'prj_a', 'conn_a'), sealed),
    ).rejects.toBeInstanceOf(SealBroken);
  });

  it('connects through HTTP with KMS as the key service, and re-wraps onto a new KMS key', async () => {
    const saved = gw.config.vault;
    const first: VaultSettings = {
      keyService: 'kms',
      kms: { keyId: await newKmsKey(kms.endpoint), region: 'us-east-1', endpoint: kms.endpoint, credentials },
    };
    gw.config.vault = first;
    try {
      const created = await connect(API_KEY_SANDBOX);
      expect(created.status).toBe(201);
      const row = await getConnection(gw.db, t, created.body.id);
      expect(await openCredential(gw.db, keyServiceFor(first), row)).toEqual(API_KEY_SANDBOX);

      const second: VaultSettings = {
        keyService: 'kms',
        kms: { ...first.kms, keyId: await newKmsKey(kms.endpoint) },
      };
      gw.config.vault = second;
      const rewrap = await gw.operator('POST', '/v1/ops/vault/rewrap');
      expect(rewrap.status).toBe(200);
      expect(rewrap.body).toMatchObject({ remaining: 0, key_ref: `kms:${second.kms.keyId}` });
      expect(rewrap.body.rewrapped).toBeGreaterThanOrEqual(1);
      const ref = await gw.db.oneFirst(
        sql.type(
          z.object({ secret_key_ref: z.string() }),
        )`SELECT secret_key_ref FROM provider_connections WHERE id = ${created.body.id}`,
      );
      expect(ref).toBe(`kms:${second.kms.keyId}`);
      expect(await openCredential(gw.db, keyServiceFor(second), row)).toEqual(API_KEY_SANDBOX);
    } finally {
      gw.config.vault = saved;
      await gw.db.query(sql.unsafe`DELETE FROM provider_connections WHERE secret_key_ref LIKE 'kms:%'`);
    }
  });
});

describe('moving from local keys to KMS', () => {
  it('keeps rows sealed under local keys readable after the switch, and re-wrapping moves them to KMS', async () => {
    const saved = gw.config.vault;
    if (saved.keyService !== 'local') throw new Error('the harness starts with local keys');
    const tenant = await gw.createTenant();
    const created = await gw.request('POST', '/v1/providers/pix-psp/connections', {
      key: tenant.key,
      body: { credentials: API_KEY_SANDBOX },
    });
    const keyId = await newKmsKey(kms.endpoint);
    gw.config.vault = {
      keyService: 'kms',
      kms: { keyId, region: 'us-east-1', endpoint: kms.endpoint, credentials },
      localKeys: saved.localKeys,
    };
    try {
      const row = await getConnection(gw.db, tenant, created.body.id);
      expect(await openCredential(gw.db, keyServiceFor(gw.config.vault), row)).toEqual(API_KEY_SANDBOX);
      const added = await gw.request('POST', '/v1/providers/pix-psp/connections', {
        key: tenant.key,
        body: { credentials: API_KEY_SANDBOX },
      });
      expect(
        await gw.db.oneFirst(
          sql.type(
            z.object({ secret_key_ref: z.string() }),
          )`SELECT secret_key_ref FROM provider_connections WHERE id = ${added.body.id}`,
        ),
      ).toBe(`kms:${keyId}`);

      let report;
      do report = (await gw.operator('POST', '/v1/ops/vault/rewrap')).body;
      while (report.remaining > 0 && report.rewrapped > 0);
      expect(report).toMatchObject({ remaining: 0, unreadable: [] });
      const kmsOnly: VaultSettings = {
        keyService: 'kms',
        kms: { keyId, region: 'us-east-1', endpoint: kms.endpoint, credentials },
      };
      expect(await openCredential(gw.db, keyServiceFor(kmsOnly), row)).toEqual(API_KEY_SANDBOX);
    } finally {
      gw.config.vault = saved;
      await gw.db.query(sql.unsafe`DELETE FROM provider_connections WHERE secret_key_ref LIKE 'kms:%'`);
    }
  });
});

describe('local key rotation', () => {
  it('re-wraps every data key under the new key while each row stays readable, then the old key can go', async () => {
    const v1 = randomBytes(32);
    const v2 = randomBytes(32);
    const saved = gw.config.vault;
    try {
      gw.config.vault = { keyService: 'local', localKeys: { current: 1, keys: new Map([[1, v1]]) } };
      const ids: string[] = [];
      for (let i = 0; i < 3; i++)
        ids.push((await connect({ api_key: `pk_rotation_test_key_${i}0000000` })).body.id);

      // Both keys configured, the new one current: old rows open, new rows are wrapped under v2.
      gw.config.vault = {
        keyService: 'local',
        localKeys: {
          current: 2,
          keys: new Map([
            [1, v1],
            [2, v2],
          ]),
        },
      };
      const during = await connect({ api_key: 'pk_rotation_test_key_during00' });
      expect(during.status).toBe(201);
      for (const id of ids)
        expect(
          (await openCredential(gw.db, keyServiceFor(gw.config.vault), await getConnection(gw.db, t, id)))
            .api_key,
        ).toMatch(/^pk_rotation/);

      const rewrap = await gw.operator('POST', '/v1/ops/vault/rewrap');
      expect(rewrap.status).toBe(200);
      expect(rewrap.body).toMatchObject({ rewrapped: 3, remaining: 0, unreadable: [], key_ref: 'local:2' });

      gw.config.vault = { keyService: 'local', localKeys: { current: 2, keys: new Map([[2, v2]]) } };
      for (const id of [...ids, during.body.id]) {
        expect(
          (await openCredential(gw.db, keyServiceFor(gw.config.vault), await getConnection(gw.db, t, id)))
            .api_key,
        ).toMatch(/^pk_rotation/);
      }
      expect((await gw.operator('POST', '/v1/ops/vault/rewrap')).body).toMatchObject({
        rewrapped: 0,
        remaining: 0,
      });
    } finally {
      gw.config.vault = saved;
      await gw.db.query(sql.unsafe`DELETE FROM provider_connections WHERE org_id = ${t.orgId}`);
    }
  });

  it('refuses the rewrap operation to an API key', async () => {
    expect((await gw.request('POST', '/v1/ops/vault/rewrap', { key: t.key })).status).toBe(401);
  });
});

describe('configuration', () => {
  it('requires a KMS key id when the KMS key service is chosen, and rejects unknown services', () => {
    expect(() => loadConfig({ GATEWAY_VAULT_KEY_SERVICE: 'kms' })).toThrow(ConfigError);
    expect(() => loadConfig({ GATEWAY_VAULT_KEY_SERVICE: 'vault9000' })).toThrow(ConfigError);
    expect(
      loadConfig({
        GATEWAY_VAULT_KEY_SERVICE: 'kms',
        GATEWAY_VAULT_KMS_KEY_ID: 'alias/gw',
        GATEWAY_VAULT_KMS_ENDPOINT: 'http://127.0.0.1:4566',
      }).vault,
    ).toMatchObject({
      keyService: 'kms',
      kms: { keyId: 'alias/gw', region: 'us-east-1', endpoint: 'http://127.0.0.1:4566' },
      localKeys: { current: 1 },
    });
  });
});
