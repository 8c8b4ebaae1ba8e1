// verify-connection through HTTP: every answer of the spec against the mock providers (real HTTP
// servers that check each auth type's injection), the OAuth connect flow with its managed callback and
// token refresh, and the connection status the provider's verdict leaves behind.
import { sql } from 'slonik';
import { z } from 'zod';
import { API_KEY_SANDBOX } from '../providers/mocks/auth-api-key';
import { HMAC_SANDBOX } from '../providers/mocks/auth-hmac';
import { PATH_SECRET_SANDBOX } from '../providers/mocks/auth-path-secret';
import { TWO_HEADER_SANDBOX } from '../providers/mocks/auth-two-header';
import type { AuthMock } from '../providers/mocks/auth-mock';
import type { OAuthMock } from '../providers/mocks/auth-oauth';
import { newWallet } from './support/money';
import { startGateway, type Gateway, type Tenant } from './support/harness';

let gw: Gateway;
let t: Tenant;
beforeAll(async () => {
  gw = await startGateway({ worker: false });
  t = await gw.createTenant();
});
afterAll(async () => {
  await gw?.stop();
});

const mock = (name: string) => gw.mocks[name] as unknown as AuthMock;
const verify = (tenant: Tenant, slug: string) =>
  gw.request('POST', `/v1/providers/${slug}/verify-connection`, { key: tenant.key });
const connect = async (tenant: Tenant, slug: string, credentials: Record<string, string>) => {
  const r = await gw.request('POST', `/v1/providers/${slug}/connections`, {
    key: tenant.key,
    body: { credentials },
  });
  if (r.status !== 201) throw new Error(`connect ${slug}: ${r.status} ${r.text}`);
  return r.body.id as string;
};

describe('a stored credential the provider accepts', () => {
  it.each([
    ['pix-psp', () => API_KEY_SANDBOX, 'acct_pix_001'],
    ['sms-otp', () => PATH_SECRET_SANDBOX, PATH_SECRET_SANDBOX.account_id],
    ['nfe-issuer', () => HMAC_SANDBOX, 'issuer_77'],
    ['stablecoin-rails', () => mock('auth_jwt_ecdsa').credentials, 'wallet_9'],
    ['freight-quotes', () => TWO_HEADER_SANDBOX, 'shipper_42'],
    ['x402-facilitator', () => mock('auth_cdp').credentials, 'facilitator_acme'],
  ])('answers 200 with the account and latency for %s', async (slug, credentials, accountId) => {
    const tenant = await gw.createTenant();
    const id = await connect(tenant, slug, credentials());
    const r = await verify(tenant, slug);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      ok: true,
      provider: slug,
      account: { id: accountId, name: expect.any(String), extras: expect.any(Object) },
      latency_ms: expect.any(Number),
    });
    const row = await gw.request('GET', `/v1/connections/${id}`, { key: tenant.key });
    expect(row.body).toMatchObject({ status: 'active', last_verified_at: expect.any(String) });
  });

  it('verifies a server that takes no credential without any connection', async () => {
    const r = await verify(t, 'postal-codes');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: true, provider: 'postal-codes', account: { id: 'public' } });
  });
});

describe('a credential the provider refuses', () => {
  it("answers 401 with the provider's words, marks the connection, and a rotation brings it back", async () => {
    const tenant = await gw.createTenant();
    const id = await connect(tenant, 'pix-psp', { api_key: 'pk_sandbox_pixpsp_revoked_01' });
    const refusedBefore = mock('auth_api_key').counts.refused;
    const r = await verify(tenant, 'pix-psp');
    expect(r.status).toBe(401);
    expect(r.body).toEqual({
      ok: false,
      error: 'credential_rejected',
      provider: 'pix-psp',
      status: 401,
      detail: 'The API key provided is not valid',
    });
    expect(mock('auth_api_key').counts.refused).toBe(refusedBefore + 1);
    expect((await gw.request('GET', `/v1/connections/${id}`, { key: tenant.key })).body).toMatchObject({
      status: 'error',
      status_reason: 'provider_rejected_credential',
    });

    const wallet = await newWallet(gw, tenant);
    const bind = await gw.request('POST', `/v1/wallets/${wallet}/funding-sources`, {
      key: tenant.key,
      body: { connection_id: id, currency: 'BRL' },
    });
    expect(bind.status).toBe(409);
    expect(bind.body.error.code).toBe('connection_not_active');

    expect(
      (
        await gw.request('POST', `/v1/connections/${id}/rotate`, {
          key: tenant.key,
          body: { credentials: API_KEY_SANDBOX },
        })
      ).status,
    ).toBe(200);
    expect((await verify(tenant, 'pix-psp')).status).toBe(200);
  });

  it('blanks out a stored secret the provider echoes back in its refusal', async () => {
    const tenant = await gw.createTenant();
    await connect(tenant, 'pix-psp', API_KEY_SANDBOX);
    mock('auth_api_key').script({
      status: 403,
      body: { message: `key ${API_KEY_SANDBOX.api_key} is suspended` },
    });
    const r = await verify(tenant, 'pix-psp');
    expect(r.status).toBe(401);
    expect(r.body.detail).toBe('key [redacted] is suspended');
    expect(r.text).not.toContain(API_KEY_SANDBOX.api_key);
  });
});

describe('the other answers', () => {
  it('answers 404 ok:false server_unknown for a slug outside the catalog', async () => {
    const r = await verify(t, 'nope-bank');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ ok: false, error: 'server_unknown', provider: 'nope-bank' });
  });

  it("answers 424 not_connected with a hint and an alternative, and another organization's connection does not count", async () => {
    const other = await gw.createTenant();
    await connect(other, 'freight-quotes', TWO_HEADER_SANDBOX);
    const r = await verify(t, 'freight-quotes');
    expect(r.status).toBe(424);
    expect(r.body).toEqual({
      ok: false,
      error: 'not_connected',
      provider: 'freight-quotes',
      hint: 'POST /v1/providers/freight-quotes/connections',
      alternative: 'postal-codes',
    });
    const oauth = await verify(t, 'dda-hub');
    expect(oauth.body).toMatchObject({
      error: 'not_connected',
      hint: 'POST /v1/providers/dda-hub/oauth/authorize',
    });
  });

  it('answers 424 for a certificate server a test key cannot connect', async () => {
    const r = await verify(t, 'ted-bank');
    expect(r.status).toBe(424);
    expect(r.body.error).toBe('not_connected');
  });

  it('answers 409 redirect_not_followed when the provider redirects', async () => {
    const tenant = await gw.createTenant();
    await connect(tenant, 'pix-psp', API_KEY_SANDBOX);
    mock('auth_api_key').script({ status: 302, headers: { location: 'https://elsewhere.example/login' } });
    const r = await verify(tenant, 'pix-psp');
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({
      ok: false,
      error: 'redirect_not_followed',
      provider: 'pix-psp',
      status: 302,
    });
  });

  it('answers 501 verify_unsupported for a server without a credential check', async () => {
    const r = await verify(t, 'email-otp');
    expect(r.status).toBe(501);
    expect(r.body).toMatchObject({ ok: false, error: 'verify_unsupported', provider: 'email-otp' });
  });

  it('answers 502 provider_unreachable with the status when the provider answered, and without it when nobody did', async () => {
    const tenant = await gw.createTenant();
    await connect(tenant, 'pix-psp', API_KEY_SANDBOX);
    mock('auth_api_key').script({ status: 500, body: { message: 'internal error' } });
    const answered = await verify(tenant, 'pix-psp');
    expect(answered.status).toBe(502);
    expect(answered.body).toMatchObject({
      ok: false,
      error: 'provider_unreachable',
      provider: 'pix-psp',
      status: 500,
    });
    const saved = gw.config.providerUrls.auth_api_key;
    gw.config.providerUrls.auth_api_key = 'http://127.0.0.1:9';
    try {
      const silent = await verify(tenant, 'pix-psp');
      expect(silent.status).toBe(502);
      expect(silent.body).toMatchObject({ ok: false, error: 'provider_unreachable', provider: 'pix-psp' });
      expect(silent.body.status).toBeUndefined();
    } finally {
      gw.config.providerUrls.auth_api_key = saved;
    }
  });

  it('answers 503 endpoint_missing when the catalog has no endpoint for the environment', async () => {
    const tenant = await gw.createTenant();
    await connect(tenant, 'freight-quotes', TWO_HEADER_SANDBOX);
    const saved = gw.config.providerUrls.auth_two_header;
    delete gw.config.providerUrls.auth_two_header;
    try {
      const r = await verify(tenant, 'freight-quotes');
      expect(r.status).toBe(503);
      expect(r.body).toMatchObject({ ok: false, error: 'endpoint_missing', provider: 'freight-quotes' });
    } finally {
      gw.config.providerUrls.auth_two_header = saved;
    }
  });

  it('needs servers:read', async () => {
    const restricted = await gw.createKey(t.projectId, { scopes: ['sessions:read'] });
    const r = await gw.request('POST', '/v1/providers/postal-codes/verify-connection', {
      key: restricted.key,
    });
    expect(r.status).toBe(403);
    expect(r.body.error).toBe('forbidden');
  });
});

describe('OAuth connections', () => {
  it('connects through the authorization flow and the managed callback, then refreshes an expiring token on use', async () => {
    const oauth = gw.mocks.auth_oauth as unknown as OAuthMock;
    oauth.settings.accessTokenTtlS = 10; // inside the 30 s refresh margin: every use refreshes
    try {
      const tenant = await gw.createTenant();
      const started = await gw.request('POST', '/v1/providers/dda-hub/oauth/authorize', {
        key: tenant.key,
        body: { label: 'Payables' },
      });
      expect(started.status).toBe(201);
      const authorizeUrl = new URL(started.body.authorize_url);
      expect(authorizeUrl.searchParams.get('code_challenge_method')).toBe('S256');
      const consent = await fetch(authorizeUrl, { redirect: 'manual' });
      expect(consent.status).toBe(302);
      const callback = new URL(consent.headers.get('location')!);
      expect(callback.origin + callback.pathname).toBe(`${gw.url}/v1/providers/oauth/callback`);

      const stored = await fetch(callback);
      expect(stored.status).toBe(201);
      const connection = (await stored.json()) as {
        id: string;
        provider: string;
        credential_fields: string[];
      };
      expect(connection).toMatchObject({
        provider: 'dda-hub',
        credential_fields: ['access_token', 'expires_at', 'refresh_token'],
      });
      expect((await fetch(callback)).status).toBe(400); // the state is spent

      const refreshesBefore = oauth.refreshes();
      const r = await verify(tenant, 'dda-hub');
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ ok: true, account: { id: 'dda_acct_5' } });
      expect(oauth.refreshes()).toBe(refreshesBefore + 1);
      expect((await verify(tenant, 'dda-hub')).status).toBe(200);
      expect(oauth.refreshes()).toBe(refreshesBefore + 2);

      const sealed = await gw.db.oneFirst(
        sql.type(
          z.object({ secret_ciphertext: z.string() }),
        )`SELECT secret_ciphertext FROM provider_connections WHERE id = ${connection.id}`,
      );
      expect(Buffer.from(sealed, 'base64').toString('latin1')).not.toMatch(/rt_[0-9a-f]{24}/);
    } finally {
      oauth.settings.accessTokenTtlS = 3600;
    }
  });

  it('serializes concurrent refreshes, so a rotated refresh token is never spent twice', async () => {
    const oauth = gw.mocks.auth_oauth as unknown as OAuthMock;
    const tenant = await gw.createTenant();
    oauth.settings.accessTokenTtlS = 10; // every use refreshes
    try {
      const started = await gw.request('POST', '/v1/providers/dda-hub/oauth/authorize', {
        key: tenant.key,
        body: {},
      });
      const consent = await fetch(started.body.authorize_url, { redirect: 'manual' });
      expect((await fetch(consent.headers.get('location')!)).status).toBe(201);
      const refreshesBefore = oauth.refreshes();
      const answers = await Promise.all([1, 2, 3, 4].map(() => verify(tenant, 'dda-hub')));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
      expect(oauth.refreshes()).toBeGreaterThan(refreshesBefore);
    } finally {
      oauth.settings.accessTokenTtlS = 3600;
    }
  });

  it('refuses to start the flow for a server that takes a pasted credential', async () => {
    const r = await gw.request('POST', '/v1/providers/pix-psp/oauth/authorize', { key: t.key, body: {} });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('not_oauth_server');
  });

  it('refuses a callback with an unknown state and stores nothing', async () => {
    const before = await gw.db.oneFirst(
      sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM provider_connections`,
    );
    const r = await fetch(`${gw.url}/v1/providers/oauth/callback?code=x&state=forged`);
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe('oauth_state_invalid');
    expect(
      await gw.db.oneFirst(
        sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM provider_connections`,
      ),
    ).toBe(before);
  });
});
