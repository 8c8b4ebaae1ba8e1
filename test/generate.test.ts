// Generated tool servers through HTTP: the project's own servers, an empty list for a project without
// any, and a 400 when the credential resolves to no project.
import { recordGeneratedServer } from '../domain/generated-servers/servers';
import { startGateway, type Gateway, type Tenant } from './support/harness';

let gw: Gateway;
let acme: Tenant;
let globex: Tenant;

beforeAll(async () => {
  gw = await startGateway({ worker: false });
  acme = await gw.createTenant({ name: 'Acme' });
  globex = await gw.createTenant({ name: 'Globex' });
});
afterAll(async () => gw?.stop());

describe('GET /v1/generate/servers', () => {
  it('answers an empty list for a project without generated servers', async () => {
    const res = await gw.request('GET', '/v1/generate/servers', { key: globex.key });
    expect([res.status, res.body]).toEqual([200, { servers: [] }]);
  });

  it("lists the project's servers, newest first, and never another organization's", async () => {
    const first = await recordGeneratedServer(gw.db, acme, {
      name: 'nfe-tools',
      description: 'Fiscal notes',
      toolCount: 3,
    });
    const second = await recordGeneratedServer(gw.db, acme, {
      name: 'frete-tools',
      description: null,
      toolCount: 0,
    });
    const res = await gw.request('GET', '/v1/generate/servers', { key: acme.key });
    expect(res.status).toBe(200);
    expect(res.body.servers.map((s: { id: string }) => s.id)).toEqual([second.id, first.id]);
    expect(res.body.servers[1]).toEqual({
      id: first.id,
      name: 'nfe-tools',
      version: '0.1.0',
      description: 'Fiscal notes',
      status: 'draft',
      tool_count: 3,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const other = await gw.request('GET', '/v1/generate/servers', { key: globex.key });
    expect(other.body).toEqual({ servers: [] });
  });

  it('answers the service credential for a named project', async () => {
    const res = await gw.operator('GET', '/v1/generate/servers', { project: globex.projectId });
    expect([res.status, res.body]).toEqual([200, { servers: [] }]);
  });

  it('refuses with 400 a credential that resolves to no project', async () => {
    const none = await gw.operator('GET', '/v1/generate/servers');
    expect([none.status, none.body.error.code]).toEqual([400, 'project_required']);
    const unknown = await gw.operator('GET', '/v1/generate/servers', { project: 'prj_doesnotexist0000' });
    expect([unknown.status, unknown.body.error.code]).toEqual([400, 'project_required']);
  });

  it('refuses a restricted key without servers:read', async () => {
    const restricted = await gw.createKey(acme.projectId, { scopes: ['sessions:read'] });
    const res = await gw.request('GET', '/v1/generate/servers', { key: restricted.key });
    expect([res.status, res.body.error]).toEqual([403, 'forbidden']);
  });
});
