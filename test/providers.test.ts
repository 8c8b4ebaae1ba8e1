// The provider catalog through HTTP: browsing with filters, one server with its tools, the auth schema
// per environment, refusals of bad queries and unknown slugs, and the servers:read scope.
import { AUTH_TYPES } from '../contracts/provider-auth-types';
import { catalogServerExists } from '../domain/providers/resolve';
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

describe('catalog listing', () => {
  it("lists every server with the spec's row fields, one per auth type at least", async () => {
    const r = await gw.request('GET', '/v1/providers', { key: t.key });
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(r.body.servers.length);
    expect(r.body.filtered).toBe(r.body.total);
    expect(new Set(r.body.servers.map((s: { auth_type: string }) => s.auth_type))).toEqual(
      new Set(AUTH_TYPES),
    );
    const pix = r.body.servers.find((s: { id: string }) => s.id === 'pix-psp');
    expect(pix).toEqual({
      id: 'pix-psp',
      name: 'Pix PSP',
      pkg: '@catalog/pix-psp',
      category: 'payments',
      country: 'BR',
      auth_type: 'api_key',
      tools_count: 3,
      status: 'active',
      description: expect.any(String),
      sandbox_available: true,
      sandbox_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      provider_docs_url: expect.any(String),
      provider_homepage: expect.any(String),
      provider_logo_url: expect.any(String),
      provider_logo_fallback_url: expect.any(String),
      subaccount_provisionable: true,
      engine_provisionable: true,
      engine_status: 'available',
    });
    const categories = new Set(r.body.servers.map((s: { category: string }) => s.category));
    for (const category of ['payments', 'banking', 'bills', 'messaging', 'crypto', 'fiscal', 'shipping'])
      expect(categories).toContain(category);
  });

  it('filters by category, country and text, reporting total and filtered', async () => {
    const shipping = await gw.request('GET', '/v1/providers?category=shipping', { key: t.key });
    expect(shipping.status).toBe(200);
    expect(shipping.body.servers.map((s: { id: string }) => s.id).sort()).toEqual([
      'freight-quotes',
      'postal-codes',
    ]);
    expect(shipping.body.filtered).toBe(2);
    expect(shipping.body.total).toBeGreaterThan(2);
    const us = await gw.request('GET', '/v1/providers?country=US', { key: t.key });
    expect(us.body.servers.every((s: { country: string }) => s.country === 'US')).toBe(true);
    const text = await gw.request('GET', '/v1/providers?q=BOLETO', { key: t.key });
    expect(text.body.servers.map((s: { id: string }) => s.id)).toEqual(['dda-hub']);
    const none = await gw.request('GET', '/v1/providers?category=payments&country=US', { key: t.key });
    expect(none.body).toMatchObject({ filtered: 0, servers: [] });
  });

  it.each([
    ['country=br'],
    ['country=BRA'],
    ['category=Pay%20ments'],
    ['q='],
    ['limit=5'],
    [`q=${'x'.repeat(201)}`],
  ])('refuses the bad query %s with invalid_query', async (query) => {
    const r = await gw.request('GET', `/v1/providers?${query}`, { key: t.key });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_query');
    expect(r.body.request_id).toBe(r.headers.get('x-request-id'));
  });
});

describe('one server', () => {
  it('reads a server with its tools: name, description, JSON Schema input and whether it moves money', async () => {
    const r = await gw.request('GET', '/v1/providers/ted-bank', { key: t.key });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: 'ted-bank', auth_type: 'cert', tools_count: 2 });
    expect(r.body.tools).toContainEqual(
      expect.objectContaining({
        name: 'ted_send',
        moves_money: true,
        input_schema: expect.objectContaining({ type: 'object' }),
      }),
    );
    expect(r.body.tools).toContainEqual(
      expect.objectContaining({ name: 'statement_read', moves_money: false }),
    );
  });

  it('answers 404 server_unknown for a slug outside the catalog, on the row and on the auth schema', async () => {
    for (const path of [
      '/v1/providers/nope-bank',
      '/v1/providers/nope-bank/auth-schema',
      '/v1/providers/..%2Fetc/auth-schema',
    ]) {
      const r = await gw.request('GET', path, { key: t.key });
      expect(r.status).toBe(404);
      expect(['server_unknown', 'not_found']).toContain(r.body.error.code);
    }
    const unknown = await gw.request('GET', '/v1/providers/nope-bank', { key: t.key });
    expect(unknown.body.error).toMatchObject({ code: 'server_unknown', details: { server_id: 'nope-bank' } });
  });
});

describe('auth schema', () => {
  it("shapes the fields of the key's environment, with the mock endpoint for a test key", async () => {
    const r = await gw.request('GET', '/v1/providers/freight-quotes/auth-schema', { key: t.key });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      server_id: 'freight-quotes',
      auth_type: 'two_header',
      environment: 'test',
      base_url: gw.config.providerUrls.auth_two_header,
      fields: [
        { name: 'client_id', kind: 'client_id', label: 'Client id', header_name: 'x-client-id' },
        {
          name: 'client_secret',
          kind: 'client_secret',
          label: 'Client secret',
          header_name: 'x-client-secret',
        },
      ],
      oauth_authorize_url: null,
    });
  });

  it("gives the provider's own endpoint to a live key, and an empty base_url where the catalog has none", async () => {
    const live = await gw.createTenant({ environment: 'live' });
    const r = await gw.request('GET', '/v1/providers/freight-quotes/auth-schema', { key: live.key });
    expect(r.body).toMatchObject({ environment: 'live', base_url: 'https://api.freightquotes.example/v1' });
    const noSandbox = await gw.request('GET', '/v1/providers/email-otp/auth-schema', { key: t.key });
    expect(noSandbox.body).toMatchObject({ environment: 'test', base_url: '' });
  });

  it('names the authorize URL of an OAuth server and no user fields for a server without credentials', async () => {
    const oauth = await gw.request('GET', '/v1/providers/dda-hub/auth-schema', { key: t.key });
    expect(oauth.body).toMatchObject({
      auth_type: 'oauth',
      fields: [],
      oauth_authorize_url: `${gw.config.providerUrls.auth_oauth}/oauth/authorize`,
    });
    const none = await gw.request('GET', '/v1/providers/postal-codes/auth-schema', { key: t.key });
    expect(none.body).toMatchObject({ auth_type: 'none', fields: [], oauth_authorize_url: null });
  });
});

describe('scope', () => {
  it('lets a servers:read key browse and refuses a key without it with the flat forbidden body', async () => {
    const reader = await gw.createKey(t.projectId, { scopes: ['servers:read'] });
    expect((await gw.request('GET', '/v1/providers', { key: reader.key })).status).toBe(200);
    expect((await gw.request('GET', '/v1/providers/pix-psp/auth-schema', { key: reader.key })).status).toBe(
      200,
    );
    const other = await gw.createKey(t.projectId, { scopes: ['sessions:read'] });
    const refused = await gw.request('GET', '/v1/providers', { key: other.key });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      error: 'forbidden',
      message: expect.stringContaining('servers:read'),
      status: 403,
    });
    expect((await gw.request('GET', '/v1/providers')).status).toBe(401);
  });
});

describe('lookup for other areas', () => {
  it('tells a catalog server from an unknown slug (webhook triggers narrow to a server_id with it)', async () => {
    expect(await catalogServerExists(gw.db, 'pix-psp')).toBe(true);
    expect(await catalogServerExists(gw.db, 'nope-bank')).toBe(false);
  });
});
