// Authentication and scopes through HTTP: keys, the service credential, restricted keys, and the
// guarantee that every key-reachable route declares its scope mapping.
import { sql } from 'slonik';
import { allRoutes } from '../api/routes';
import { KEY_UNGRANTABLE_SCOPES, SCOPES } from '../contracts/scopes';
import { startGateway, type Gateway, type Tenant } from './support/harness';

let gw: Gateway;
let tenant: Tenant;
beforeAll(async () => {
  gw = await startGateway();
  tenant = await gw.createTenant();
});
afterAll(async () => {
  await gw?.stop();
});

const samplePath = (path: string) => path.replace(/:([A-Za-z_]+)/g, 'x_sample');

describe('API keys', () => {
  it('mints 41-character keys whose prefix names the project environment', async () => {
    expect(tenant.key).toMatch(/^csk_test_[0-9A-Za-z]{32}$/);
    expect(tenant.key).toHaveLength(41);
    const live = await gw.createTenant({ environment: 'live' });
    expect(live.key).toMatch(/^csk_live_[0-9A-Za-z]{32}$/);
  });

  it('stores only a hash of the key value', async () => {
    const rows = await gw.db.any(
      sql.unsafe`SELECT key_hash, key_hint FROM api_keys WHERE id = ${tenant.keyId}`,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].key_hash).not.toContain(tenant.key.slice(9));
    expect(rows[0].key_hash).toMatch(/^[0-9a-f]{64}$/);
    const listed = await gw.operator('GET', '/v1/api-keys', { project: tenant.projectId });
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain(tenant.key);
  });

  it.each([
    ['no Authorization header', undefined],
    ['a malformed key', 'csk_test_short'],
    ['an unknown well-formed key', 'csk_test_' + 'A'.repeat(32)],
    ['a token of another scheme', 'Basic abc'],
  ])('answers the bare 401 for %s', async (_name, key) => {
    const result = await gw.request(
      'GET',
      '/v1/whoami',
      key === 'Basic abc' ? { headers: { Authorization: key } } : { key },
    );
    expect(result.status).toBe(401);
    expect(result.body).toEqual({ error: 'unauthorized' });
    expect(result.headers.get('x-request-id')).toBeTruthy();
  });

  it('refuses a key whose prefix does not match its project environment', async () => {
    const swapped = tenant.key.replace('csk_test_', 'csk_live_');
    expect((await gw.request('GET', '/v1/whoami', { key: swapped })).body).toEqual({ error: 'unauthorized' });
    // A key row whose project is live while the key says test (legacy data) is refused too.
    const live = await gw.createTenant({ environment: 'live' });
    const minted = await gw.createKey(tenant.projectId);
    await gw.db.query(
      sql.unsafe`UPDATE api_keys SET project_id = ${live.projectId}, org_id = ${live.orgId} WHERE id = ${minted.id}`,
    );
    gw.deps.keyCache.clear();
    const result = await gw.request('GET', '/v1/whoami', { key: minted.key });
    expect(result.status).toBe(401);
    expect(result.body).toEqual({ error: 'unauthorized' });
  });

  it('stops accepting a revoked key at once', async () => {
    const minted = await gw.createKey(tenant.projectId, { name: 'to revoke' });
    expect((await gw.request('GET', '/v1/whoami', { key: minted.key })).status).toBe(200);
    const revoked = await gw.operator('DELETE', `/v1/api-keys/${minted.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).toBeTruthy();
    const after = await gw.request('GET', '/v1/whoami', { key: minted.key });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: 'unauthorized' });
  });

  it('describes the caller on whoami', async () => {
    const result = await gw.request('GET', '/v1/whoami', { key: tenant.key });
    expect(result.status).toBe(200);
    expect(result.body).toEqual({
      key: { id: tenant.keyId, environment: 'test', scopes: ['*'] },
      organization: { id: tenant.orgId },
      project: { id: tenant.projectId },
    });
  });
});

describe('scopes', () => {
  it('lets a restricted key call whoami, which needs no scope', async () => {
    const restricted = await gw.createKey(tenant.projectId, { scopes: ['sessions:read'] });
    const result = await gw.request('GET', '/v1/whoami', { key: restricted.key });
    expect(result.status).toBe(200);
    expect(result.body.key.scopes).toEqual(['sessions:read']);
  });

  it('refuses a restricted key without the route scope with the flat forbidden body naming it', async () => {
    const restricted = await gw.createKey(tenant.projectId, { scopes: ['sessions:read'] });
    const result = await gw.request('GET', `/v1/projects/${tenant.projectId}/settings`, {
      key: restricted.key,
    });
    expect(result.status).toBe(403);
    expect(result.body).toEqual({
      error: 'forbidden',
      message: expect.stringContaining('projects:settings'),
      status: 403,
    });
  });

  it('lets a key holding the scope through', async () => {
    const scoped = await gw.createKey(tenant.projectId, { scopes: ['projects:settings'] });
    expect(
      (await gw.request('GET', `/v1/projects/${tenant.projectId}/settings`, { key: scoped.key })).status,
    ).toBe(200);
  });

  it('answers route_scope_unmapped to a restricted key on a route without a scope mapping', async () => {
    // Every scope a restricted key can be given: even all of them reach no unmapped route.
    const scoped = await gw.createKey(tenant.projectId, {
      scopes: SCOPES.filter((scope) => !KEY_UNGRANTABLE_SCOPES.includes(scope)),
    });
    const result = await gw.request('GET', '/v1/projects', { key: scoped.key });
    expect(result.status).toBe(403);
    expect(result.body.error.code).toBe('route_scope_unmapped');
    expect(result.body.request_id).toBe(result.headers.get('x-request-id'));
  });

  it('refuses to mint a key with an unknown scope', async () => {
    const result = await gw.operator('POST', '/v1/api-keys', {
      project: tenant.projectId,
      body: { name: 'x', scopes: ['money:print'] },
    });
    expect(result.status).toBe(400);
    expect(result.body.error.code).toBe('invalid_body');
  });

  it('maps every key-reachable route to a scope, no scope, or unmapped, and enforces it', async () => {
    const outsider = await gw.createKey(tenant.projectId, { scopes: ['servers:read'] });
    const keyRoutes = allRoutes().filter((route) => route.auth === 'key');
    expect(keyRoutes.length).toBeGreaterThan(5);
    for (const route of keyRoutes) {
      expect(
        route.scope === null ||
          route.scope === 'unmapped' ||
          (SCOPES as readonly string[]).includes(route.scope as string),
      ).toBe(true);
      const result = await gw.request(route.method.toUpperCase(), samplePath(route.path), {
        key: outsider.key,
        body: route.body ? {} : undefined,
      });
      if (route.scope === 'unmapped') {
        expect([route.path, result.status, result.body?.error?.code]).toEqual([
          route.path,
          403,
          'route_scope_unmapped',
        ]);
      } else if (route.scope === null || route.scope === 'servers:read') {
        expect([route.path, result.status]).not.toEqual([route.path, 403]);
      } else {
        expect([route.path, result.status, result.body?.error]).toEqual([route.path, 403, 'forbidden']);
      }
    }
  });
});

describe('the public surface', () => {
  // The provider OAuth callback is public too: the provider sends the person's browser there, and the
  // single-use state it carries is what ties the answer to a pending connection.
  it('documents as public only the OAuth operations, the provider OAuth callback and the description documents', async () => {
    const document = (await gw.request('GET', '/openapi.json')).body;
    const open: string[] = [];
    for (const [path, operations] of Object.entries(
      document.paths as Record<string, Record<string, { security?: unknown[] }>>,
    )) {
      for (const [method, operation] of Object.entries(operations)) {
        if (Array.isArray(operation.security) && operation.security.length === 0)
          open.push(`${method.toUpperCase()} ${path}`);
      }
    }
    const allowed =
      /^(GET \/openapi\.json|GET \/v1\/openapi\.json|GET \/\.well-known\/oauth-authorization-server|(GET|POST) \/oauth\/authorize|POST \/oauth\/register|POST \/oauth\/token|GET \/v1\/providers\/oauth\/callback)$/;
    expect(open.filter((operation) => !allowed.test(operation))).toEqual([]);
    expect(open).toEqual(expect.arrayContaining(['GET /openapi.json', 'POST /oauth/token']));
  });

  it('answers the bare 401 to anonymous calls of the consent submit and the signing keys', async () => {
    for (const [method, path] of [
      ['POST', `/v1/consents/ctk_${'A'.repeat(40)}/submit`],
      ['GET', '/v1/receipts/signing-keys'],
    ]) {
      const result = await gw.request(method, path, { body: method === 'POST' ? {} : undefined });
      expect([path, result.status, result.body]).toEqual([path, 401, { error: 'unauthorized' }]);
    }
  });
});

describe('service credential', () => {
  it('targets a project with x-service-project and bypasses scopes', async () => {
    const result = await gw.operator('GET', '/v1/whoami', { project: tenant.projectId });
    expect(result.status).toBe(200);
    expect(result.body.key).toEqual({ id: null, environment: 'test', scopes: ['*'] });
    expect(result.body.project.id).toBe(tenant.projectId);
  });

  it('shows the acting user named by x-service-user', async () => {
    const user = await gw.operator('POST', `/v1/orgs/${tenant.orgId}/users`, {
      body: { email: 'Ana@example.com', display_name: 'Ana', role: 'admin' },
    });
    expect(user.status).toBe(201);
    const result = await gw.operator('GET', '/v1/whoami', { project: tenant.projectId, user: user.body.id });
    expect(result.body.user).toEqual({ email: 'ana@example.com', name: 'Ana' });
  });

  it('answers project_resolution_failed when no project is named', async () => {
    const result = await gw.operator('GET', '/v1/whoami');
    expect(result.status).toBe(500);
    expect(result.body).toEqual({ error: 'project_resolution_failed' });
  });

  it('answers the flat project_resolution_failed for a project that does not exist, and creates nothing', async () => {
    for (const project of ['prj_doesnotexist0000', 'not-a-project-id']) {
      const result = await gw.operator('GET', '/v1/whoami', { project });
      expect([project, result.status, result.body]).toEqual([
        project,
        500,
        { error: 'project_resolution_failed' },
      ]);
    }
    const created = await gw.operator('POST', '/v1/consumers', {
      project: 'prj_doesnotexist0000',
      body: { display_name: 'Nobody' },
    });
    expect([created.status, created.body]).toEqual([500, { error: 'project_resolution_failed' }]);
    expect(
      await gw.db.oneFirst(sql.unsafe`SELECT count(*)::int FROM consumers WHERE display_name = 'Nobody'`),
    ).toBe(0);
  });

  it('keeps every operator-only route closed to API keys with 401', async () => {
    const operatorRoutes = allRoutes().filter((route) => route.auth === 'operator');
    expect(operatorRoutes.length).toBeGreaterThan(5);
    for (const route of operatorRoutes) {
      const result = await gw.request(route.method.toUpperCase(), samplePath(route.path), {
        key: tenant.key,
        body: route.body ? {} : undefined,
      });
      expect([route.path, result.status, result.body]).toEqual([route.path, 401, { error: 'unauthorized' }]);
    }
  });

  it('refuses a wrong service token like any unknown credential', async () => {
    const result = await gw.request('POST', '/v1/orgs', { key: 'x'.repeat(48), body: { name: 'Nope' } });
    expect(result.status).toBe(401);
    expect(result.body).toEqual({ error: 'unauthorized' });
  });
});
