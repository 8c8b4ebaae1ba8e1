// OAuth 2.1 grants, through HTTP: the consent form exchanging a pasted key for a code, the token
// endpoint (PKCE, single-use codes, rotating refresh tokens with reuse detection), and access tokens
// acting as restricted credentials of the key they were granted with. Discovery, registration and the
// consent page's refusals are in oauth-clients.test.ts.
import { sql } from 'slonik';
import { z } from 'zod';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import {
  approve,
  authorizationParams,
  connect,
  exchangeCode,
  pkce,
  postConsent,
  REDIRECT_URI,
  refresh,
  registerClient,
  sha256Hex,
  tokenRequest,
} from './support/oauth-flow';

let gw: Gateway;
let tenant: Tenant;
beforeAll(async () => {
  gw = await startGateway({ worker: false });
  tenant = await gw.createTenant({ name: 'Acme' });
});
afterAll(async () => {
  await gw?.stop();
});

const whoami = (token: string) => gw.request('GET', '/v1/whoami', { key: token });
const count = async (query: ReturnType<typeof sql.unsafe>) => Number(await gw.db.oneFirst(query));

describe('the consent form', () => {
  it('exchanges a pasted key for a code and redirects back with code, state and issuer', async () => {
    const clientId = await registerClient(gw, { redirect_uris: ['https://app.example.com/cb?tenant=7'] });
    const pair = pkce();
    const { location, code } = await approve(gw, {
      clientId,
      challenge: pair.challenge,
      redirectUri: 'https://app.example.com/cb?tenant=7',
      state: 'af0ifjsldkj',
      apiKey: `  ${tenant.key}\n`,
    });
    expect(location.origin + location.pathname).toBe('https://app.example.com/cb');
    expect(location.searchParams.get('tenant')).toBe('7');
    expect(location.searchParams.get('state')).toBe('af0ifjsldkj');
    expect(location.searchParams.get('iss')).toBe(gw.url);
    expect(code).toMatch(/^cso_ac_[0-9A-Za-z]{43}$/);
  });

  it('refuses a key that is not a live key with a 400 page and issues nothing', async () => {
    const clientId = await registerClient(gw);
    const revoked = await gw.createKey(tenant.projectId);
    await gw.operator('DELETE', `/v1/api-keys/${revoked.id}`, { project: tenant.projectId });
    const before = await count(sql.unsafe`SELECT count(*) FROM oauth_authorization_codes`);
    for (const apiKey of [
      '',
      'not-a-key',
      `csk_test_${'A'.repeat(32)}`,
      revoked.key,
      tenant.key.replace('csk_test_', 'csk_live_'),
    ]) {
      const r = await postConsent(gw, {
        ...authorizationParams({ clientId, challenge: pkce().challenge }),
        api_key: apiKey,
      });
      expect([apiKey, r.status]).toEqual([apiKey, 400]);
      expect(r.headers.get('location')).toBeNull();
      expect(r.text).toContain('role="alert"');
      expect(r.text).toContain('name="api_key"'); // the consent page again, so the person can retry
    }
    expect(await count(sql.unsafe`SELECT count(*) FROM oauth_authorization_codes`)).toBe(before);
  });

  it('refuses a request the pasted key holds none of, and grants nothing', async () => {
    const clientId = await registerClient(gw);
    const narrow = await gw.createKey(tenant.projectId, { scopes: ['sessions:read'] });
    const before = await count(sql.unsafe`SELECT count(*) FROM oauth_grants`);
    const r = await postConsent(gw, {
      ...authorizationParams({ clientId, challenge: pkce().challenge, scope: 'tools:execute proxy:execute' }),
      api_key: narrow.key,
    });
    expect(r.status).toBe(400);
    expect(r.headers.get('location')).toBeNull();
    expect(r.text).toContain('cannot grant tools:execute proxy:execute');
    expect(await count(sql.unsafe`SELECT count(*) FROM oauth_grants`)).toBe(before);
  });

  it('grants the requested scopes the pasted key holds and names them in the token answer', async () => {
    const narrow = await gw.createKey(tenant.projectId, { scopes: ['tools:execute', 'servers:read'] });
    const everything =
      'sessions:create sessions:read tools:execute servers:read projects:settings proxy:execute consents:write';
    const { tokens } = await connect(gw, narrow.key, { scope: everything });
    expect(tokens.scope).toBe('tools:execute servers:read');
    expect((await whoami(tokens.access_token)).body.key.scopes).toEqual(['tools:execute', 'servers:read']);
    const consents = await gw.request('POST', '/v1/consents', { key: tokens.access_token, body: {} });
    expect([consents.status, consents.body.error]).toEqual([403, 'forbidden']);
  });

  it("lets a restricted key grant what it holds, and grants the key's scopes when none are asked for", async () => {
    const narrow = await gw.createKey(tenant.projectId, { scopes: ['sessions:read', 'servers:read'] });
    const asked = await connect(gw, narrow.key, { scope: 'servers:read' });
    expect(asked.tokens.scope).toBe('servers:read');
    const unasked = await connect(gw, narrow.key);
    expect(unasked.tokens.scope).toBe('sessions:read servers:read');
  });

  it('lets a wildcard key grant any listed scope, but never the wildcard itself', async () => {
    const asked = await connect(gw, tenant.key, { scope: 'proxy:execute consents:write' });
    expect(asked.tokens.scope).toBe('proxy:execute consents:write');
    const everything = await connect(gw, tenant.key);
    expect(everything.tokens.scope.split(' ')).toHaveLength(7);
    const me = await whoami(everything.tokens.access_token);
    expect(me.body.key.scopes).not.toContain('*');
  });

  it('sends the person back with access_denied when they deny, without needing a key', async () => {
    const clientId = await registerClient(gw);
    const r = await postConsent(gw, {
      ...authorizationParams({ clientId, challenge: pkce().challenge, state: 'st1' }),
      decision: 'deny',
    });
    expect(r.status).toBe(302);
    const location = new URL(r.headers.get('location')!);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('st1');
    expect(location.searchParams.get('code')).toBeNull();
  });

  it('refuses a form whose redirect_uri was swapped for an unregistered one, with a page and no redirect', async () => {
    const clientId = await registerClient(gw);
    const r = await postConsent(gw, {
      ...authorizationParams({
        clientId,
        challenge: pkce().challenge,
        redirectUri: 'https://attacker.example/cb',
      }),
      api_key: tenant.key,
    });
    expect(r.status).toBe(400);
    expect(r.headers.get('location')).toBeNull();
    expect(r.headers.get('content-type')).toContain('text/html');
  });

  it('takes the same fields as JSON from a scripted client', async () => {
    const clientId = await registerClient(gw);
    const r = await gw.request('POST', '/oauth/authorize', {
      body: {
        ...authorizationParams({ clientId, challenge: pkce().challenge, state: 'j' }),
        api_key: tenant.key,
      },
    });
    expect(r.status).toBe(302);
    expect(new URL(r.headers.get('location')!).searchParams.get('code')).toMatch(/^cso_ac_/);
  });

  it('answers a form missing its fields with a 400 HTML page', async () => {
    const r = await postConsent(gw, { api_key: tenant.key });
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toContain('text/html');
  });
});

describe('the token endpoint', () => {
  it("exchanges a code (form-encoded) for a bearer token that authenticates as the key's project", async () => {
    const { tokens } = await connect(gw, tenant.key, { scope: 'sessions:read' });
    expect(tokens).toEqual({
      access_token: expect.stringMatching(/^cso_at_[0-9A-Za-z]{43}$/),
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^cso_rt_[0-9A-Za-z]{43}$/),
      scope: 'sessions:read',
    });
    const me = await whoami(tokens.access_token);
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      key: { id: tenant.keyId, environment: 'test', scopes: ['sessions:read'] },
      organization: { id: tenant.orgId },
      project: { id: tenant.projectId },
    });
  });

  it('accepts a JSON token request and answers no-store', async () => {
    const clientId = await registerClient(gw);
    const pair = pkce();
    const { code } = await approve(gw, { clientId, challenge: pair.challenge, apiKey: tenant.key });
    const r = await tokenRequest(
      gw,
      {
        grant_type: 'authorization_code',
        code,
        code_verifier: pair.verifier,
        redirect_uri: REDIRECT_URI,
        client_id: clientId,
      },
      'json',
    );
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('access-control-allow-origin')).toBe('*'); // browser-based public clients
    expect((await whoami(r.body.access_token)).status).toBe(200);
  });

  it('stores codes and tokens only as SHA-256 hashes', async () => {
    const { tokens, code } = await connect(gw, tenant.key);
    expect(
      await count(
        sql.unsafe`SELECT count(*) FROM oauth_access_tokens WHERE token_hash = ${sha256Hex(tokens.access_token)}`,
      ),
    ).toBe(1);
    expect(
      await count(
        sql.unsafe`SELECT count(*) FROM oauth_refresh_tokens WHERE token_hash = ${sha256Hex(tokens.refresh_token)}`,
      ),
    ).toBe(1);
    expect(
      await count(
        sql.unsafe`SELECT count(*) FROM oauth_authorization_codes WHERE code_hash = ${sha256Hex(code)}`,
      ),
    ).toBe(1);
    const dump = await gw.db.oneFirst(sql.unsafe`
      SELECT (SELECT coalesce(string_agg(t::text, ' '), '') FROM oauth_access_tokens t) || (SELECT coalesce(string_agg(r::text, ' '), '') FROM oauth_refresh_tokens r)
          || (SELECT coalesce(string_agg(c::text, ' '), '') FROM oauth_authorization_codes c) || (SELECT coalesce(string_agg(e::text, ' '), '') FROM events e)`);
    for (const secret of [tokens.access_token, tokens.refresh_token, code, tenant.key])
      expect(String(dump)).not.toContain(secret);
  });

  it('refuses a wrong PKCE verifier with invalid_grant, and the code is spent by the attempt', async () => {
    const clientId = await registerClient(gw);
    const pair = pkce();
    const { code } = await approve(gw, { clientId, challenge: pair.challenge, apiKey: tenant.key });
    const wrong = await exchangeCode(gw, { code, clientId, verifier: pkce().verifier });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({
      error: 'invalid_grant',
      error_description: expect.stringContaining('PKCE'),
    });
    const right = await exchangeCode(gw, { code, clientId, verifier: pair.verifier });
    expect(right.status).toBe(400);
    expect(right.body.error).toBe('invalid_grant');
  });

  it('refuses a second use of a code and revokes the tokens issued from the first', async () => {
    const { clientId, tokens, code, pkce: pair } = await connect(gw, tenant.key);
    expect((await whoami(tokens.access_token)).status).toBe(200);
    const again = await exchangeCode(gw, { code, clientId, verifier: pair.verifier });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
    expect((await whoami(tokens.access_token)).status).toBe(401);
    expect((await refresh(gw, tokens.refresh_token)).body.error).toBe('invalid_grant');
    const revoked = await gw.db.one(sql.type(z.object({ type: z.string(), data: z.record(z.unknown()) }))`
      SELECT type, data FROM events WHERE org_id = ${tenant.orgId} AND type = 'oauth_grant.revoked' ORDER BY id DESC LIMIT 1`);
    expect(revoked.data).toMatchObject({
      client_id: clientId,
      api_key_id: tenant.keyId,
      reason: 'authorization_code_reuse',
    });
  });

  it('redeems a code raced by two exchanges only once, and revokes what that one got', async () => {
    const clientId = await registerClient(gw);
    const pair = pkce();
    const { code } = await approve(gw, { clientId, challenge: pair.challenge, apiKey: tenant.key });
    const results = await Promise.all(
      [0, 1].map(() => exchangeCode(gw, { code, clientId, verifier: pair.verifier })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
    const winner = results.find((r) => r.status === 200)!;
    expect((await whoami(winner.body.access_token)).status).toBe(401);
  });

  it('refuses an expired code with invalid_grant', async () => {
    const clientId = await registerClient(gw);
    const pair = pkce();
    const { code } = await approve(gw, { clientId, challenge: pair.challenge, apiKey: tenant.key });
    const lifetime = await gw.db.oneFirst(sql.type(z.object({ s: z.number() }))`
      SELECT extract(epoch FROM expires_at - created_at)::int AS s FROM oauth_authorization_codes WHERE code_hash = ${sha256Hex(code)}`);
    expect(lifetime).toBe(60);
    await gw.db.query(
      sql.unsafe`UPDATE oauth_authorization_codes SET expires_at = now() - interval '1 second' WHERE code_hash = ${sha256Hex(code)}`,
    );
    const r = await exchangeCode(gw, { code, clientId, verifier: pair.verifier });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: 'invalid_grant', error_description: 'The code has expired' });
  });

  it('refuses a code presented by another client or with another redirect_uri', async () => {
    const clientId = await registerClient(gw, {
      redirect_uris: [REDIRECT_URI, 'http://127.0.0.1:8976/other'],
    });
    const otherClient = await registerClient(gw);
    const first = pkce();
    const a = await approve(gw, { clientId, challenge: first.challenge, apiKey: tenant.key });
    const byOther = await exchangeCode(gw, { code: a.code, clientId: otherClient, verifier: first.verifier });
    expect(byOther.body).toEqual({
      error: 'invalid_grant',
      error_description: 'The code was issued to another client',
    });
    const second = pkce();
    const b = await approve(gw, { clientId, challenge: second.challenge, apiKey: tenant.key });
    const elsewhere = await exchangeCode(gw, {
      code: b.code,
      clientId,
      verifier: second.verifier,
      redirectUri: 'http://127.0.0.1:8976/other',
    });
    expect(elsewhere.body.error).toBe('invalid_grant');
  });

  it.each([
    ['client_credentials', 'unsupported_grant_type', { grant_type: 'client_credentials' }],
    ['password', 'unsupported_grant_type', { grant_type: 'password', username: 'u', password: 'p' }],
    ['no grant_type', 'invalid_request', { code: 'x' }],
    [
      'a code grant without code_verifier',
      'invalid_request',
      { grant_type: 'authorization_code', code: 'cso_ac_x', redirect_uri: REDIRECT_URI, client_id: 'ocl_x' },
    ],
    [
      'a code grant without client_id',
      'invalid_request',
      {
        grant_type: 'authorization_code',
        code: 'cso_ac_x',
        code_verifier: 'v'.repeat(43),
        redirect_uri: REDIRECT_URI,
      },
    ],
    ['a refresh grant without refresh_token', 'invalid_request', { grant_type: 'refresh_token' }],
    [
      'an unknown code',
      'invalid_grant',
      {
        grant_type: 'authorization_code',
        code: `cso_ac_${'Z'.repeat(43)}`,
        code_verifier: 'v'.repeat(43),
        redirect_uri: REDIRECT_URI,
        client_id: 'ocl_x',
      },
    ],
    ['an unknown refresh token', 'invalid_grant', { grant_type: 'refresh_token', refresh_token: 'nope' }],
  ])('answers %s with %s in the OAuth error shape', async (_label, error, fields) => {
    const r = await tokenRequest(gw, fields as Record<string, string>);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error, error_description: expect.any(String) });
  });

  it('answers a JSON body with a non-string field, or an unsupported content type, with invalid_request', async () => {
    const typed = await gw.request('POST', '/oauth/token', {
      body: { grant_type: 'refresh_token', refresh_token: 42 },
    });
    expect(typed.status).toBe(400);
    expect(typed.body.error).toBe('invalid_request');
    const plain = await gw.request('POST', '/oauth/token', {
      raw: 'grant_type=refresh_token',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(plain.body.error).toBe('invalid_request');
    const broken = await gw.request('POST', '/oauth/token', {
      raw: '{',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(broken.status).toBe(400);
    expect(broken.body.error).toBe('invalid_request');
  });
});

describe('refresh tokens', () => {
  it('rotate on every use: a new pair each time, and the new access token works', async () => {
    const { tokens, clientId } = await connect(gw, tenant.key, { scope: 'sessions:read servers:read' });
    const first = await refresh(gw, tokens.refresh_token, { client_id: clientId });
    expect(first.status).toBe(200);
    expect(first.body.refresh_token).not.toBe(tokens.refresh_token);
    expect(first.body.access_token).not.toBe(tokens.access_token);
    expect(first.body.scope).toBe('sessions:read servers:read');
    const second = await refresh(gw, first.body.refresh_token);
    expect(second.status).toBe(200);
    expect((await whoami(second.body.access_token)).status).toBe(200);
  });

  it('revoke the whole grant family when a rotated refresh token is presented again', async () => {
    const { tokens } = await connect(gw, tenant.key);
    const rotated = await refresh(gw, tokens.refresh_token);
    expect(rotated.status).toBe(200);
    const replay = await refresh(gw, tokens.refresh_token);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    expect((await whoami(rotated.body.access_token)).status).toBe(401);
    expect((await whoami(tokens.access_token)).status).toBe(401);
    expect((await refresh(gw, rotated.body.refresh_token)).body.error).toBe('invalid_grant');
  });

  it('let only one of two simultaneous refreshes with the same token through, and treat the other as reuse', async () => {
    const { tokens } = await connect(gw, tenant.key);
    const results = await Promise.all([refresh(gw, tokens.refresh_token), refresh(gw, tokens.refresh_token)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
    const winner = results.find((r) => r.status === 200)!;
    expect((await whoami(winner.body.access_token)).status).toBe(401);
  });

  it('may narrow the scope of the new access token, never widen it', async () => {
    const { tokens } = await connect(gw, tenant.key, { scope: 'sessions:read servers:read' });
    const wider = await refresh(gw, tokens.refresh_token, { scope: 'sessions:read tools:execute' });
    expect(wider.body.error).toBe('invalid_scope');
    const narrower = await refresh(gw, tokens.refresh_token, { scope: 'servers:read' });
    expect(narrower.status).toBe(200);
    expect(narrower.body.scope).toBe('servers:read');
    expect((await whoami(narrower.body.access_token)).body.key.scopes).toEqual(['servers:read']);
  });

  it('refuses a refresh token presented by another client', async () => {
    const { tokens } = await connect(gw, tenant.key);
    const otherClient = await registerClient(gw);
    const r = await refresh(gw, tokens.refresh_token, { client_id: otherClient });
    expect(r.body.error).toBe('invalid_grant');
    expect((await refresh(gw, tokens.refresh_token)).status).toBe(200); // refused, not spent
  });

  it('refuse an expired refresh token, and an expired access token no longer authenticates', async () => {
    const { tokens } = await connect(gw, tenant.key);
    await gw.db.query(
      sql.unsafe`UPDATE oauth_access_tokens SET expires_at = now() - interval '1 second' WHERE token_hash = ${sha256Hex(tokens.access_token)}`,
    );
    await gw.db.query(
      sql.unsafe`UPDATE oauth_refresh_tokens SET expires_at = now() - interval '1 second' WHERE token_hash = ${sha256Hex(tokens.refresh_token)}`,
    );
    expect((await whoami(tokens.access_token)).status).toBe(401);
    const r = await refresh(gw, tokens.refresh_token);
    expect(r.body).toEqual({ error: 'invalid_grant', error_description: 'The refresh token has expired' });
  });
});

describe('access tokens as credentials', () => {
  it('get 403 forbidden on a route whose scope was not granted, and pass where it was', async () => {
    const { tokens } = await connect(gw, tenant.key, { scope: 'sessions:read' });
    const refused = await gw.request('GET', `/v1/projects/${tenant.projectId}/settings`, {
      key: tokens.access_token,
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      error: 'forbidden',
      message: expect.stringContaining('projects:settings'),
      status: 403,
    });
    const granted = await connect(gw, tenant.key, { scope: 'projects:settings' });
    const ok = await gw.request('GET', `/v1/projects/${tenant.projectId}/settings`, {
      key: granted.tokens.access_token,
    });
    expect(ok.status).toBe(200);
  });

  it('are restricted credentials: a route with no scope mapping answers route_scope_unmapped', async () => {
    const { tokens } = await connect(gw, tenant.key);
    const r = await gw.request('GET', '/v1/projects', { key: tokens.access_token });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('route_scope_unmapped');
  });

  it("cannot read another organization's project (404)", async () => {
    const other = await gw.createTenant({ name: 'Globex' });
    const { tokens } = await connect(gw, other.key, { scope: 'projects:settings' });
    const foreign = await gw.request('GET', `/v1/projects/${tenant.projectId}/settings`, {
      key: tokens.access_token,
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('not_found');
    const own = await gw.request('GET', `/v1/projects/${other.projectId}/settings`, {
      key: tokens.access_token,
    });
    expect(own.status).toBe(200);
  });

  it('stop working, with their refresh tokens, when the key the grant was made with is revoked', async () => {
    const key = await gw.createKey(tenant.projectId, { scopes: ['sessions:read'] });
    const { tokens } = await connect(gw, key.key);
    expect((await whoami(tokens.access_token)).body.key.id).toBe(key.id);
    const revoked = await gw.operator('DELETE', `/v1/api-keys/${key.id}`, { project: tenant.projectId });
    expect(revoked.status).toBe(200);
    const after = await whoami(tokens.access_token);
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: 'unauthorized' });
    expect((await refresh(gw, tokens.refresh_token)).body.error).toBe('invalid_grant');
    expect((await whoami(tenant.key)).status).toBe(200); // other keys of the project are untouched
  });

  it("records the grant in the project's event log without any secret", async () => {
    const { clientId } = await connect(gw, tenant.key, { scope: 'servers:read' });
    const created = await gw.db.one(sql.type(
      z.object({ data: z.record(z.unknown()), project_id: z.string() }),
    )`
      SELECT data, project_id FROM events WHERE type = 'oauth_grant.created' AND data->>'client_id' = ${clientId}`);
    expect(created.project_id).toBe(tenant.projectId);
    expect(created.data).toMatchObject({
      client_id: clientId,
      client_name: 'Test agent',
      api_key_id: tenant.keyId,
      scope: 'servers:read',
    });
  });
});
