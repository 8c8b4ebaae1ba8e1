// Provider connections through HTTP: a project stores a credential once, reads it back without the
// secret, rotates and deletes it; every refusal writes nothing; another organization sees 404; a failing
// key service is 503 with nothing written; and no secret shows up in a response, a log line or a row.
import { sql } from 'slonik';
import { z } from 'zod';
import { openCredential, getConnection } from '../domain/providers/connections';
import { keyServiceFor } from '../domain/vault/select';
import { API_KEY_SANDBOX } from '../providers/mocks/auth-api-key';
import { HMAC_SANDBOX } from '../providers/mocks/auth-hmac';
import { PATH_SECRET_SANDBOX } from '../providers/mocks/auth-path-secret';
import { CERT_ROGUE, CERT_SANDBOX } from '../providers/mocks/auth-cert';
import type { AuthMock } from '../providers/mocks/auth-mock';
import { startGateway, type Gateway, type Tenant } from './support/harness';

let gw: Gateway;
let t: Tenant;
const logLines: string[] = [];
const responses: string[] = [];
const writeStderr = process.stderr.write.bind(process.stderr);
const previousLevel = process.env.LOG_LEVEL;

beforeAll(async () => {
  // Every log line of the run is kept and searched for secrets at the end.
  process.env.LOG_LEVEL = 'debug';
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    logLines.push(String(chunk));
    return (writeStderr as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stderr.write;
  gw = await startGateway({ worker: false });
  process.env.LOG_LEVEL = previousLevel;
  t = await gw.createTenant();
});
afterAll(async () => {
  process.stderr.write = writeStderr;
  await gw?.stop();
});

async function call(method: string, path: string, options: { key: string; body?: unknown }) {
  const r = await gw.request(method, path, options);
  responses.push(r.text);
  return r;
}

const connect = (tenant: Tenant, slug: string, credentials: Record<string, string>, label?: string) =>
  call('POST', `/v1/providers/${slug}/connections`, {
    key: tenant.key,
    body: { credentials, ...(label ? { label } : {}) },
  });

async function rowCount(tenant: Tenant): Promise<number> {
  return gw.db.oneFirst(
    sql.type(
      z.object({ n: z.number() }),
    )`SELECT count(*)::int AS n FROM provider_connections WHERE org_id = ${tenant.orgId}`,
  );
}

describe('connect, read, list, rotate, delete', () => {
  it('stores a credential once and answers the connection without its secret', async () => {
    const created = await connect(t, 'pix-psp', API_KEY_SANDBOX, 'Pix main');
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^conn_/),
      object: 'connection',
      provider: 'pix-psp',
      auth_type: 'api_key',
      environment: 'test',
      label: 'Pix main',
      status: 'active',
      status_reason: null,
      rail: 'pix',
      credential_fields: ['api_key'],
      settings: {},
      created_at: expect.any(String),
      updated_at: expect.any(String),
      rotated_at: null,
      last_verified_at: null,
    });
    const read = await call('GET', `/v1/connections/${created.body.id}`, { key: t.key });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
    const list = await call('GET', '/v1/connections?provider=pix-psp', { key: t.key });
    expect(list.body.connections.map((c: { id: string }) => c.id)).toContain(created.body.id);
    const sealed = await gw.db.one(sql.type(
      z.object({ secret_ciphertext: z.string(), secret_key_ref: z.string() }),
    )`
      SELECT secret_ciphertext, secret_key_ref FROM provider_connections WHERE id = ${created.body.id}`);
    expect(sealed.secret_key_ref).toBe('local:1');
    expect(Buffer.from(sealed.secret_ciphertext, 'base64').toString('latin1')).not.toContain(
      API_KEY_SANDBOX.api_key,
    );
  });

  it('keeps plain settings readable and seals the rest', async () => {
    const mock = gw.mocks.auth_jwt_ecdsa as unknown as AuthMock;
    const created = await connect(t, 'stablecoin-rails', {
      ...mock.credentials,
      onchain_address: `0x${'ab'.repeat(20)}`,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      credential_fields: ['key_id', 'private_key'],
      settings: { onchain_address: `0x${'ab'.repeat(20)}` },
    });
  });

  it('rotates the credential under a fresh data key, and the old one is gone', async () => {
    const created = await connect(t, 'nfe-issuer', HMAC_SANDBOX);
    // Opened (and kept by this process) before the rotation: what opens after it is the new credential.
    for (let i = 0; i < 2; i++)
      expect(
        await openCredential(
          gw.db,
          keyServiceFor(gw.config.vault),
          await getConnection(gw.db, t, created.body.id),
        ),
      ).toEqual(HMAC_SANDBOX);
    const before = await gw.db.one(sql.type(
      z.object({ secret_ciphertext: z.string(), secret_wrapped_key: z.string() }),
    )`
      SELECT secret_ciphertext, secret_wrapped_key FROM provider_connections WHERE id = ${created.body.id}`);
    const rotated = await call('POST', `/v1/connections/${created.body.id}/rotate`, {
      key: t.key,
      body: { credentials: { key_id: 'AKROTATED0002', secret: 'cm90YXRlZC1zaWduaW5nLXNlY3JldC0wMDAy' } },
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({
      id: created.body.id,
      status: 'active',
      rotated_at: expect.any(String),
    });
    const after = await gw.db.one(sql.type(
      z.object({ secret_ciphertext: z.string(), secret_wrapped_key: z.string() }),
    )`
      SELECT secret_ciphertext, secret_wrapped_key FROM provider_connections WHERE id = ${created.body.id}`);
    expect(after.secret_wrapped_key).not.toBe(before.secret_wrapped_key);
    const opened = await openCredential(
      gw.db,
      keyServiceFor(gw.config.vault),
      await getConnection(gw.db, t, created.body.id),
    );
    expect(opened).toEqual({ key_id: 'AKROTATED0002', secret: 'cm90YXRlZC1zaWduaW5nLXNlY3JldC0wMDAy' });
  });

  it('refuses a rotation with a bad credential and keeps the old one', async () => {
    const created = await connect(t, 'freight-quotes', {
      client_id: 'freight_client_1',
      client_secret: 'freight_secret_000000001',
    });
    const r = await call('POST', `/v1/connections/${created.body.id}/rotate`, {
      key: t.key,
      body: { credentials: { client_id: 'freight_client_1' } },
    });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('credential_invalid');
    const opened = await openCredential(
      gw.db,
      keyServiceFor(gw.config.vault),
      await getConnection(gw.db, t, created.body.id),
    );
    expect(opened.client_secret).toBe('freight_secret_000000001');
  });

  it('deletes a connection, and then it is 404', async () => {
    const created = await connect(t, 'sms-otp', {
      account_id: PATH_SECRET_SANDBOX.account_id,
      token: PATH_SECRET_SANDBOX.token,
    });
    const deleted = await call('DELETE', `/v1/connections/${created.body.id}`, { key: t.key });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: created.body.id, deleted: true });
    for (const [method, path] of [
      ['GET', `/v1/connections/${created.body.id}`],
      ['DELETE', `/v1/connections/${created.body.id}`],
    ]) {
      const r = await call(method, path, { key: t.key });
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    }
  });
});

describe('client certificates', () => {
  it("stores a certificate and its key for a live project, and refuses a key that is not the certificate's", async () => {
    const live = await gw.createTenant({ environment: 'live' });
    const created = await connect(live, 'ted-bank', CERT_SANDBOX());
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      environment: 'live',
      auth_type: 'cert',
      credential_fields: ['certificate', 'private_key'],
    });
    const mismatch = await connect(live, 'ted-bank', {
      certificate: CERT_SANDBOX().certificate,
      private_key: CERT_ROGUE().private_key,
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error).toMatchObject({
      code: 'credential_invalid',
      details: { reason: 'key_certificate_mismatch' },
    });
  });
});

describe('refusals write nothing', () => {
  const longKey = `pk_${'a'.repeat(20)}`;
  it.each([
    ['server_unknown', 404, 'nope-bank', { api_key: longKey }],
    ['not_api_key_server', 400, 'dda-hub', { access_token: 'x' }],
    ['no_user_fields', 400, 'postal-codes', {}],
    ['fields_not_user_editable', 400, 'pix-psp', { api_key: longKey, base_url: 'http://evil.example' }],
    ['credential_invalid', 400, 'freight-quotes', { client_id: 'freight_client_1' }],
    ['invalid_secret_shape', 400, 'pix-psp', { api_key: 'not-a-key' }],
    ['path_secret_keys_mismatch', 400, 'sms-otp', { account_id: PATH_SECRET_SANDBOX.account_id }],
    [
      'invalid_secret_shape',
      400,
      'stablecoin-rails',
      {
        key_id: 'sandbox-key-01',
        private_key: '-----BEGIN PRIVATE KEY-----\nnotakey\n-----END PRIVATE KEY-----',
      },
    ],
    ['credential_invalid', 400, 'ted-bank', CERT_SANDBOX()],
  ])('refuses with %s (%s) on %s', async (code, status, slug, credentials) => {
    const before = await rowCount(t);
    const r = await connect(t, slug, credentials as Record<string, string>);
    expect(r.status).toBe(status);
    expect(r.body.error.code).toBe(code);
    expect(r.body.request_id).toBe(r.headers.get('x-request-id'));
    expect(await rowCount(t)).toBe(before);
  });

  it('refuses a malformed body with invalid_body', async () => {
    for (const body of [
      {},
      { credentials: 'x' },
      { credentials: { api_key: 5 } },
      { credentials: {}, extra: true },
      { credentials: { 'Bad-Name': 'x' } },
    ]) {
      const r = await call('POST', '/v1/providers/pix-psp/connections', { key: t.key, body });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('invalid_body');
    }
  });

  it('refuses control characters in a label or a connection id with a 400, never a 500', async () => {
    const before = await rowCount(t);
    const label = await call('POST', '/v1/providers/pix-psp/connections', {
      key: t.key,
      body: { label: 'a\u0000b', credentials: API_KEY_SANDBOX },
    });
    expect(label.status).toBe(400);
    expect(label.body.error.code).toBe('invalid_body');
    for (const path of ['/v1/connections/conn%00x', '/v1/connections/conn%00x/rotate']) {
      const r = await call(path.endsWith('rotate') ? 'POST' : 'GET', path, {
        key: t.key,
        body: path.endsWith('rotate') ? { credentials: API_KEY_SANDBOX } : undefined,
      });
      expect(r.status).toBe(400);
    }
    const callback = await fetch(`${gw.url}/v1/providers/oauth/callback?code=x&state=a%00b`);
    expect(callback.status).toBe(400);
    expect(await rowCount(t)).toBe(before);
  });

  it('answers 503 vault_unavailable when the key service is down, and writes nothing', async () => {
    const saved = gw.config.vault;
    gw.config.vault = {
      keyService: 'kms',
      kms: {
        keyId: 'alias/gateway',
        region: 'us-east-1',
        endpoint: 'http://127.0.0.1:9',
        credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
      },
    };
    try {
      const before = await rowCount(t);
      const r = await connect(t, 'pix-psp', API_KEY_SANDBOX);
      expect(r.status).toBe(503);
      expect(r.body.error.code).toBe('vault_unavailable');
      expect(await rowCount(t)).toBe(before);
    } finally {
      gw.config.vault = saved;
    }
  });
});

describe('tenant isolation and the encryption context', () => {
  it("answers 404 for another organization's connection on every route and leaves it intact", async () => {
    const other = await gw.createTenant();
    const theirs = await connect(other, 'pix-psp', API_KEY_SANDBOX);
    for (const [method, path, body] of [
      ['GET', `/v1/connections/${theirs.body.id}`],
      ['DELETE', `/v1/connections/${theirs.body.id}`],
      ['POST', `/v1/connections/${theirs.body.id}/rotate`, { credentials: API_KEY_SANDBOX }],
    ] as Array<[string, string, unknown?]>) {
      const r = await call(method, path, { key: t.key, body });
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    }
    const mine = await call('GET', '/v1/connections', { key: t.key });
    expect(mine.body.connections.map((c: { id: string }) => c.id)).not.toContain(theirs.body.id);
    expect((await call('GET', `/v1/connections/${theirs.body.id}`, { key: other.key })).status).toBe(200);
  });

  it('does not open a sealed credential moved onto another row', async () => {
    const a = await connect(t, 'pix-psp', API_KEY_SANDBOX);
    const b = await connect(t, 'pix-psp', { api_key: 'pk_other_account_key_000000' });
    await gw.db.query(sql.unsafe`
      UPDATE provider_connections AS target SET secret_ciphertext = source.secret_ciphertext, secret_wrapped_key = source.secret_wrapped_key, secret_key_ref = source.secret_key_ref
      FROM provider_connections AS source WHERE source.id = ${a.body.id} AND target.id = ${b.body.id}`);
    const keys = keyServiceFor(gw.config.vault);
    await expect(openCredential(gw.db, keys, await getConnection(gw.db, t, b.body.id))).rejects.toMatchObject(
      { status: 503, code: 'vault_unavailable' },
    );
    expect(await openCredential(gw.db, keys, await getConnection(gw.db, t, a.body.id))).toEqual(
      API_KEY_SANDBOX,
    );
  });
});

describe('secrets', () => {
  it('never shows a stored secret in a response, a log line, an event or a plain column', async () => {
    const secrets = [
      API_KEY_SANDBOX.api_key,
      HMAC_SANDBOX.secret,
      PATH_SECRET_SANDBOX.token,
      'freight_secret_000000001',
      'cm90YXRlZC1zaWduaW5nLXNlY3JldC0wMDAy',
    ];
    const events = await gw.db.any(sql.type(z.object({ data: z.unknown() }))`SELECT data FROM events`);
    const plainColumns = await gw.db.any(sql.type(z.object({ plain: z.string() }))`
      SELECT concat_ws(' ', id, provider, label, settings::text, status_reason, secret_fields::text) AS plain FROM provider_connections`);
    const haystacks = [
      ...responses,
      ...logLines,
      ...events.map((e) => JSON.stringify(e.data)),
      ...plainColumns.map((c) => c.plain),
    ];
    expect(responses.length).toBeGreaterThan(10);
    for (const secret of secrets) {
      expect(haystacks.filter((text) => text.includes(secret))).toEqual([]);
    }
  });
});
