// What a project-bound key may do to the other projects of its organization, through HTTP: it reads
// them, changes only its own, and never reaches the other environment; the service credential acts for all.
import { sql } from 'slonik';
import { startGateway, type Gateway, type Tenant } from './support/harness';

let gw: Gateway;
let acme: Tenant;
beforeAll(async () => {
  gw = await startGateway();
  acme = await gw.createTenant({ name: 'Acme' });
});
afterAll(async () => {
  await gw?.stop();
});

const create = (tenant: Tenant, body: Record<string, unknown>) =>
  gw.request('POST', '/v1/projects', { key: tenant.key, body });

describe('what a key may do to the other projects of its organization', () => {
  const snapshot = (id: string) =>
    gw.db.one(sql.unsafe`
    SELECT name, slug, is_default, settings, (SELECT count(*)::int FROM project_settings_history h WHERE h.project_id = p.id) AS changes
    FROM projects p WHERE id = ${id}`);

  it('reads a sibling project and its settings, but refuses to rename, re-default, reconfigure or delete it, and changes nothing', async () => {
    const sibling = await create(acme, { name: 'Sibling', slug: 'sibling' });
    const id = sibling.body.id as string;
    const before = await snapshot(id);
    expect((await gw.request('GET', `/v1/projects/${id}`, { key: acme.key })).body).toEqual(sibling.body);
    expect((await gw.request('GET', `/v1/projects/${id}/settings`, { key: acme.key })).status).toBe(200);
    expect((await gw.request('GET', `/v1/projects/${id}/settings/history`, { key: acme.key })).status).toBe(
      200,
    );
    const writes: Array<[string, string, unknown?]> = [
      ['PATCH', `/v1/projects/${id}`, { name: 'Hijacked' }],
      ['PATCH', `/v1/projects/${id}`, { slug: 'hijacked' }],
      ['PATCH', `/v1/projects/${id}`, { is_default: true }],
      ['PATCH', `/v1/projects/${id}/settings`, { approval_ttl_seconds: 600 }],
      ['DELETE', `/v1/projects/${id}`],
    ];
    for (const [method, path, body] of writes) {
      const result = await gw.request(method, path, { key: acme.key, body });
      expect([method, path, result.status, result.body.error?.code]).toEqual([
        method,
        path,
        403,
        'project_not_writable',
      ]);
      expect(result.body.request_id).toBe(result.headers.get('x-request-id'));
    }
    expect(await snapshot(id)).toEqual(before);
    expect(
      (await gw.request('GET', '/v1/projects?is_default=true', { key: acme.key })).body.projects[0].id,
    ).toBe(acme.projectId);
  });

  it("lets the sibling's own key and the service credential change it", async () => {
    const sibling = await create(acme, { name: 'Own', slug: 'own-changes' });
    const own = await gw.createKey(sibling.body.id);
    const renamed = await gw.request('PATCH', `/v1/projects/${sibling.body.id}`, {
      key: own.key,
      body: { name: 'Own renamed' },
    });
    expect(renamed.body.name).toBe('Own renamed');
    const configured = await gw.request('PATCH', `/v1/projects/${sibling.body.id}/settings`, {
      key: own.key,
      body: { approval_ttl_seconds: 600 },
    });
    expect(configured.body.overrides).toEqual({ approval_ttl_seconds: 600 });
    const byOperator = await gw.operator('PATCH', `/v1/projects/${sibling.body.id}`, {
      project: acme.projectId,
      body: { name: 'Operator renamed' },
    });
    expect(byOperator.body.name).toBe('Operator renamed');
  });

  it("answers 401 to a csk_test_ key on a live project's settings and writes, and changes nothing", async () => {
    const live = await gw.operator('POST', '/v1/projects', {
      project: acme.projectId,
      body: { name: 'Production', slug: 'production', environment: 'live' },
    });
    expect(live.body.environment).toBe('live');
    const id = live.body.id as string;
    const liveKey = await gw.createKey(id);
    expect(
      (
        await gw.request('PATCH', `/v1/projects/${id}/settings`, {
          key: liveKey.key,
          body: { approval_ttl_seconds: 900 },
        })
      ).status,
    ).toBe(200);
    const before = await snapshot(id);
    const calls: Array<[string, string, unknown?]> = [
      ['GET', `/v1/projects/${id}/settings`],
      ['GET', `/v1/projects/${id}/settings/history`],
      ['PATCH', `/v1/projects/${id}/settings`, { approval_ttl_seconds: 600 }],
      ['PATCH', `/v1/projects/${id}`, { name: 'Hijacked' }],
      ['DELETE', `/v1/projects/${id}`],
    ];
    for (const [method, path, body] of calls) {
      const result = await gw.request(method, path, { key: acme.key, body });
      expect([method, path, result.status, result.body]).toEqual([
        method,
        path,
        401,
        { error: 'unauthorized' },
      ]);
    }
    expect(await snapshot(id)).toEqual(before);
    // Its public record stays readable, as the organization's list shows it anyway.
    expect((await gw.request('GET', `/v1/projects/${id}`, { key: acme.key })).body.environment).toBe('live');
  });

  it('answers 401 to a key creating a project in the other environment, and creates nothing', async () => {
    const result = await create(acme, { name: 'Sneaky live', slug: 'sneaky-live', environment: 'live' });
    expect(result.status).toBe(401);
    expect(result.body).toEqual({ error: 'unauthorized' });
    expect(
      await gw.db.oneFirst(sql.unsafe`SELECT count(*)::int FROM projects WHERE slug = 'sneaky-live'`),
    ).toBe(0);
  });
});
