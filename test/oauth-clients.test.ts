// OAuth 2.1 for clients, through HTTP, before any grant: discovery documents, dynamic client
// registration, and the consent page with every refusal of an authorization request.
import { sql } from 'slonik';
import { allRoutes } from '../api/routes';
import { grantScopes, parseScope } from '../domain/oauth/scope';
import { startGateway, type Gateway } from './support/harness';
import { authorizePath, pkce, REDIRECT_URI, registerClient } from './support/oauth-flow';

let gw: Gateway;
beforeAll(async () => {
  gw = await startGateway({ worker: false });
});
afterAll(async () => {
  await gw?.stop();
});

const whoami = (token: string) => gw.request('GET', '/v1/whoami', { key: token });
const count = async (query: ReturnType<typeof sql.unsafe>) => Number(await gw.db.oneFirst(query));

describe('discovery', () => {
  it('publishes authorization server metadata with the endpoints, PKCE S256, public clients and the grantable scopes', async () => {
    const r = await gw.request('GET', '/.well-known/oauth-authorization-server');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      issuer: gw.url,
      authorization_endpoint: `${gw.url}/oauth/authorize`,
      token_endpoint: `${gw.url}/oauth/token`,
      registration_endpoint: `${gw.url}/oauth/register`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['none'],
      code_challenge_methods_supported: ['S256'],
    });
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(r.body.scopes_supported).toEqual([
      'sessions:create',
      'sessions:read',
      'tools:execute',
      'servers:read',
      'projects:settings',
      'proxy:execute',
      'consents:write',
    ]);
  });

  it('publishes protected resource metadata naming this authorization server', async () => {
    const r = await gw.request('GET', '/.well-known/oauth-protected-resource');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      resource: gw.url,
      authorization_servers: [gw.url],
      bearer_methods_supported: ['header'],
    });
  });

  it('lists as supported exactly the scopes routes enforce, each of which some key can grant', async () => {
    const enforced = new Set(
      allRoutes()
        .map((route) => route.scope)
        .filter((scope) => scope !== null && scope !== 'unmapped'),
    );
    const resource = await gw.request('GET', '/.well-known/oauth-protected-resource');
    const server = await gw.request('GET', '/.well-known/oauth-authorization-server');
    expect(new Set(resource.body.scopes_supported)).toEqual(enforced);
    expect(server.body.scopes_supported).toEqual(resource.body.scopes_supported);
    // A wildcard key grants every listed name; nothing listed is a name the authorize endpoint refuses.
    expect(grantScopes(parseScope(server.body.scopes_supported.join(' ')), ['*'])).toEqual(
      server.body.scopes_supported,
    );
  });

  it('points a 401 at the protected resource metadata, marking a refused token as invalid_token', async () => {
    const none = await gw.request('GET', '/v1/whoami');
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ error: 'unauthorized' });
    expect(none.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${gw.url}/.well-known/oauth-protected-resource"`,
    );
    const bad = await whoami(`cso_at_${'x'.repeat(43)}`);
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('lists the credential-issuing operations in the OpenAPI document, and not the discovery documents', async () => {
    const r = await gw.request('GET', '/openapi.json');
    expect(Object.keys(r.body.paths)).toEqual(
      expect.arrayContaining(['/oauth/register', '/oauth/authorize', '/oauth/token']),
    );
    expect(Object.keys(r.body.paths['/oauth/authorize'])).toEqual(expect.arrayContaining(['get', 'post']));
    expect(r.body.paths['/oauth/token'].post.security).toEqual([]);
    expect(r.body.paths['/oauth/token'].post.requestBody.content).toHaveProperty(
      'application/x-www-form-urlencoded',
    );
    expect(r.body.paths['/oauth/token'].post.requestBody.content).toHaveProperty('application/json');
    expect(r.body.paths).not.toHaveProperty('/.well-known/oauth-authorization-server');
  });
});

describe('dynamic client registration', () => {
  it('registers a public client and answers the spec fields, with token_endpoint_auth_method always none', async () => {
    const r = await gw.request('POST', '/oauth/register', {
      body: {
        client_name: 'Claude',
        redirect_uris: ['https://app.example.com/cb', 'http://localhost:3000/cb'],
        token_endpoint_auth_method: 'client_secret_basic',
        logo_uri: 'https://x.example/logo.png',
      },
    });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      client_id: expect.stringMatching(/^ocl_[0-9A-Za-z]{24}$/),
      client_id_issued_at: expect.any(Number),
      client_name: 'Claude',
      grant_types: ['authorization_code', 'refresh_token'],
      redirect_uris: ['https://app.example.com/cb', 'http://localhost:3000/cb'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
  });

  it('cuts client_name to 256 characters', async () => {
    const r = await gw.request('POST', '/oauth/register', {
      body: { client_name: 'é'.repeat(300), redirect_uris: [REDIRECT_URI] },
    });
    expect(r.status).toBe(201);
    expect(r.body.client_name).toBe('é'.repeat(256));
  });

  it.each([
    ['plain http to a public host', ['http://app.example.com/cb']],
    ['http to a host that only starts like localhost', ['http://localhost.evil.example/cb']],
    ['a relative URI', ['/callback']],
    ['a fragment', ['https://app.example.com/cb#frag']],
    ['a custom scheme', ['myapp://callback']],
    ['a javascript: URI', ['javascript:alert(1)']],
    ['user information', ['https://user:pass@app.example.com/cb']],
    ['an empty list', []],
    ['one bad URI among good ones', ['https://app.example.com/cb', 'ftp://files.example.com/']],
    ['a non-string entry', [42]],
  ])('refuses %s with 400 invalid_redirect_uri and registers nothing', async (_label, uris) => {
    const before = await count(sql.unsafe`SELECT count(*) FROM oauth_clients`);
    const r = await gw.request('POST', '/oauth/register', {
      body: { client_name: 'Bad', redirect_uris: uris },
    });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: 'invalid_redirect_uri', error_description: expect.any(String) });
    expect(await count(sql.unsafe`SELECT count(*) FROM oauth_clients`)).toBe(before);
  });

  it('refuses a registration without redirect_uris with invalid_redirect_uri', async () => {
    const r = await gw.request('POST', '/oauth/register', { body: { client_name: 'No URIs' } });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_redirect_uri');
  });

  it('accepts http redirect URIs on loopback hosts', async () => {
    for (const uri of [
      'http://127.0.0.1/cb',
      'http://127.9.9.9:65000/cb',
      'http://[::1]:8080/cb',
      'http://localhost/cb',
    ]) {
      const r = await gw.request('POST', '/oauth/register', { body: { redirect_uris: [uri] } });
      expect([uri, r.status]).toEqual([uri, 201]);
      expect(r.body.client_name).toBeNull();
    }
  });

  it('refuses a grant type it does not support with invalid_client_metadata', async () => {
    const r = await gw.request('POST', '/oauth/register', {
      body: { redirect_uris: [REDIRECT_URI], grant_types: ['client_credentials'] },
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_client_metadata');
  });
});

describe('the consent page', () => {
  it('shows the client name (escaped) and the requested scopes, with a form for the API key and a strict CSP', async () => {
    const clientId = await registerClient(gw, { client_name: '<script>alert("x")</script> Agent' });
    const r = await gw.request(
      'GET',
      authorizePath({
        clientId,
        challenge: pkce().challenge,
        scope: 'sessions:read tools:execute',
        state: 's"1',
      }),
    );
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/html');
    expect(r.text).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; Agent');
    expect(r.text).not.toContain('<script');
    expect(r.text).toContain('<code>sessions:read</code>');
    expect(r.text).toContain('<code>tools:execute</code>');
    expect(r.text).not.toContain('<code>consents:write</code>');
    expect(r.text).toContain('name="api_key"');
    expect(r.text).toContain('value="s&quot;1"');
    const csp = r.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self' http://127.0.0.1:8976");
    expect(r.headers.get('x-frame-options')).toBe('DENY');
  });

  it.each([
    ['no client_id', { client_id: undefined }],
    ['an unknown client', { client_id: 'ocl_AAAAAAAAAAAAAAAAAAAAAAAA' }],
    ['a redirect_uri the client did not register', { redirect_uri: 'https://attacker.example/cb' }],
    ['a redirect_uri that only extends a registered one', { redirect_uri: `${REDIRECT_URI}/more` }],
    ['no redirect_uri', { redirect_uri: undefined }],
    ['response_type token', { response_type: 'token' }],
    ['no code_challenge', { code_challenge: undefined }],
    ['a malformed code_challenge', { code_challenge: 'short' }],
    ['code_challenge_method plain', { code_challenge_method: 'plain' }],
    ['an unknown scope', { scope: 'sessions:read admin' }],
    ['the wildcard as a scope', { scope: '*' }],
  ])('answers %s with a 400 HTML page and never a redirect', async (_label, override) => {
    const clientId = await registerClient(gw);
    const r = await gw.request(
      'GET',
      authorizePath({ clientId, challenge: pkce().challenge, state: 'st' }, override),
    );
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toContain('text/html');
    expect(r.headers.get('location')).toBeNull();
    expect(r.text).toContain('This authorization request cannot continue');
  });
});
