// Projects through HTTP: listing, slug rules, the one default per organization, deletion rules,
// settings with their history, members (operator only), and isolation between organizations.
import { sql } from 'slonik';
import { startGateway, type Gateway, type Tenant } from './support/harness';

let gw: Gateway;
let acme: Tenant;
let other: Tenant;
beforeAll(async () => {
  gw = await startGateway();
  acme = await gw.createTenant({ name: 'Acme' });
  other = await gw.createTenant({ name: 'Other' });
});
afterAll(async () => {
  await gw?.stop();
});

const create = (tenant: Tenant, body: Record<string, unknown>) =>
  gw.request('POST', '/v1/projects', { key: tenant.key, body });

describe('creating and reading projects', () => {
  it('creates a non-default project in the caller environment with a prj_ id', async () => {
    const result = await create(acme, { name: 'Checkout', slug: 'checkout' });
    expect(result.status).toBe(201);
    expect(result.body).toEqual({
      id: expect.stringMatching(/^prj_[0-9A-Za-z]{16}$/),
      org_id: acme.orgId,
      name: 'Checkout',
      slug: 'checkout',
      is_default: false,
      environment: 'test',
      created_at: expect.any(String),
    });
    const fetched = await gw.request('GET', `/v1/projects/${result.body.id}`, { key: acme.key });
    expect(fetched.body).toEqual(result.body);
  });

  it('keeps the environment given at creation', async () => {
    const result = await gw.operator('POST', '/v1/projects', {
      project: acme.projectId,
      body: { name: 'Live', slug: 'live-one', environment: 'live' },
    });
    expect(result.body.environment).toBe('live');
    const patched = await gw.operator('PATCH', `/v1/projects/${result.body.id}`, {
      project: acme.projectId,
      body: { environment: 'test' },
    });
    expect(patched.status).toBe(400);
    expect(patched.body.error.code).toBe('invalid_body');
  });

  it.each([
    ['Upper', 'slug_invalid'],
    ['has space', 'slug_invalid'],
    ['x'.repeat(65), 'invalid_body'],
    ['ção', 'slug_invalid'],
    ['default', 'slug_reserved'],
  ])('refuses slug %j with %s and creates nothing', async (slug, code) => {
    const before = await gw.db.oneFirst(
      sql.unsafe`SELECT count(*)::int FROM projects WHERE org_id = ${acme.orgId}`,
    );
    const result = await create(acme, { name: 'Bad', slug });
    expect(result.status).toBe(400);
    expect(result.body.error.code).toBe(code);
    expect(
      await gw.db.oneFirst(sql.unsafe`SELECT count(*)::int FROM projects WHERE org_id = ${acme.orgId}`),
    ).toBe(before);
  });

  it('accepts the full slug alphabet up to 64 characters', async () => {
    const slug = `a_b-9${'z'.repeat(59)}`;
    expect((await create(acme, { name: 'Long', slug })).status).toBe(201);
  });

  it('refuses a slug already used in the organization with slug_conflict, but another organization may use it', async () => {
    expect((await create(acme, { name: 'A', slug: 'shared' })).status).toBe(201);
    const again = await create(acme, { name: 'B', slug: 'shared' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('slug_conflict');
    expect((await create(other, { name: 'C', slug: 'shared' })).status).toBe(201);
  });

  it('reports every schema problem in details.issues', async () => {
    const result = await create(acme, { name: '', extra: true });
    expect(result.status).toBe(400);
    expect(result.body.error.code).toBe('invalid_body');
    const paths = result.body.error.details.issues.map((issue: { path: string }) => issue.path);
    expect(paths).toEqual(expect.arrayContaining(['/name', '/slug', '/extra']));
  });

  it('validates settings given at creation and names the bad key', async () => {
    const result = await create(acme, {
      name: 'S',
      slug: 'with-settings',
      settings: { approval_ttl_seconds: 5 },
    });
    expect(result.status).toBe(400);
    expect(result.body.error.details.key).toBe('approval_ttl_seconds');
    const unknown = await create(acme, { name: 'S', slug: 'with-settings', settings: { colour: 'red' } });
    expect(unknown.body.error.details.key).toBe('colour');
    expect(
      (await create(acme, { name: 'S', slug: 'with-settings', settings: { approval_ttl_seconds: 600 } }))
        .status,
    ).toBe(201);
  });
});

describe('listing', () => {
  it('pages with limit and offset and filters by is_default', async () => {
    const all = await gw.request('GET', '/v1/projects?limit=100', { key: acme.key });
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(all.body.projects.length);
    expect(all.body.projects.every((p: { org_id: string }) => p.org_id === acme.orgId)).toBe(true);
    const page = await gw.request('GET', '/v1/projects?limit=2&offset=1', { key: acme.key });
    expect(page.body.projects.map((p: { id: string }) => p.id)).toEqual(
      all.body.projects.slice(1, 3).map((p: { id: string }) => p.id),
    );
    expect(page.body).toMatchObject({ limit: 2, offset: 1, total: all.body.total });
    const defaults = await gw.request('GET', '/v1/projects?is_default=true', { key: acme.key });
    expect(defaults.body.projects).toHaveLength(1);
    expect(defaults.body.projects[0].id).toBe(acme.projectId);
  });

  it('uses 50 as the default page size', async () => {
    expect((await gw.request('GET', '/v1/projects', { key: acme.key })).body.limit).toBe(50);
  });

  it.each(['limit=0', 'limit=101', 'limit=abc', 'offset=-1', 'is_default=maybe', 'colour=red'])(
    'refuses %s with invalid_query',
    async (query) => {
      const result = await gw.request('GET', `/v1/projects?${query}`, { key: acme.key });
      expect(result.status).toBe(400);
      expect(result.body.error.code).toBe('invalid_query');
      expect(result.body.error.details.issues.length).toBeGreaterThan(0);
    },
  );
});

describe('the default project', () => {
  it('moves the default in one transaction and keeps exactly one', async () => {
    const next = await create(acme, { name: 'Next default', slug: 'next-default' });
    const nextKey = await gw.createKey(next.body.id);
    const patched = await gw.request('PATCH', `/v1/projects/${next.body.id}`, {
      key: nextKey.key,
      body: { is_default: true },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.is_default).toBe(true);
    const defaults = await gw.request('GET', '/v1/projects?is_default=true', { key: acme.key });
    expect(defaults.body.projects.map((p: { id: string }) => p.id)).toEqual([next.body.id]);
    // Move it back so later tests see the original default.
    await gw.request('PATCH', `/v1/projects/${acme.projectId}`, {
      key: acme.key,
      body: { is_default: true },
    });
  });

  it('enforces one default per organization in the database itself', async () => {
    const project = await create(acme, { name: 'Sneaky', slug: 'sneaky' });
    await expect(
      gw.db.query(sql.unsafe`UPDATE projects SET is_default = true WHERE id = ${project.body.id}`),
    ).rejects.toThrow();
  });

  it('treats is_default false as no change', async () => {
    const result = await gw.request('PATCH', `/v1/projects/${acme.projectId}`, {
      key: acme.key,
      body: { is_default: false },
    });
    expect(result.status).toBe(200);
    expect(result.body.is_default).toBe(true);
  });

  it('renames and re-slugs, refusing a taken slug', async () => {
    const project = await create(acme, { name: 'Rename me', slug: 'rename-me' });
    const own = await gw.createKey(project.body.id);
    const renamed = await gw.request('PATCH', `/v1/projects/${project.body.id}`, {
      key: own.key,
      body: { name: 'Renamed', slug: 'renamed' },
    });
    expect(renamed.body).toMatchObject({ name: 'Renamed', slug: 'renamed' });
    const taken = await gw.request('PATCH', `/v1/projects/${project.body.id}`, {
      key: own.key,
      body: { slug: 'checkout' },
    });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('slug_conflict');
    const empty = await gw.request('PATCH', `/v1/projects/${project.body.id}`, { key: own.key, body: {} });
    expect(empty.status).toBe(400);
  });
});

describe('deleting', () => {
  it('refuses to delete the default project while the organization has others, and keeps it', async () => {
    const result = await gw.request('DELETE', `/v1/projects/${acme.projectId}`, { key: acme.key });
    expect(result.status).toBe(409);
    expect(result.body.error.code).toBe('cannot_delete_default');
    expect((await gw.request('GET', `/v1/projects/${acme.projectId}`, { key: acme.key })).status).toBe(200);
  });

  it('refuses to delete the only project of an organization with cannot_delete_last_project, though it is also the default', async () => {
    const lone = await gw.createTenant({ name: 'Lone' });
    for (const result of [
      await gw.request('DELETE', `/v1/projects/${lone.projectId}`, { key: lone.key }),
      await gw.operator('DELETE', `/v1/projects/${lone.projectId}`, { project: lone.projectId }),
    ]) {
      expect(result.status).toBe(409);
      expect(result.body.error.code).toBe('cannot_delete_last_project');
    }
    expect(await gw.db.one(sql.unsafe`SELECT is_default FROM projects WHERE id = ${lone.projectId}`)).toEqual(
      { is_default: true },
    );
    expect((await gw.request('GET', '/v1/whoami', { key: lone.key })).status).toBe(200);
  });

  it('refuses to delete a project holding consumer records', async () => {
    const project = await create(acme, { name: 'Has consumers', slug: 'has-consumers' });
    await gw.db.query(
      sql.unsafe`INSERT INTO consumers (id, org_id, project_id) VALUES ('cns_test_row', ${acme.orgId}, ${project.body.id})`,
    );
    const result = await gw.operator('DELETE', `/v1/projects/${project.body.id}`, {
      project: acme.projectId,
    });
    expect(result.status).toBe(409);
    expect(result.body.error.code).toBe('cannot_delete_with_consumer_records');
  });

  it("lets a project's own key delete it with its keys, which stop working", async () => {
    const project = await create(acme, { name: 'Doomed', slug: 'doomed' });
    const key = await gw.createKey(project.body.id);
    expect((await gw.request('GET', '/v1/whoami', { key: key.key })).status).toBe(200);
    const result = await gw.request('DELETE', `/v1/projects/${project.body.id}`, { key: key.key });
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ id: project.body.id, deleted: true });
    expect((await gw.request('GET', `/v1/projects/${project.body.id}`, { key: acme.key })).status).toBe(404);
    expect((await gw.request('GET', '/v1/whoami', { key: key.key })).status).toBe(401);
    expect(
      await gw.db.oneFirst(
        sql.unsafe`SELECT count(*)::int FROM api_keys WHERE project_id = ${project.body.id}`,
      ),
    ).toBe(0);
  });

  it('lets the service credential delete any project of its organization', async () => {
    const project = await create(acme, { name: 'Operator doomed', slug: 'operator-doomed' });
    const result = await gw.operator('DELETE', `/v1/projects/${project.body.id}`, {
      project: acme.projectId,
    });
    expect(result.status).toBe(200);
    expect((await gw.request('GET', `/v1/projects/${project.body.id}`, { key: acme.key })).status).toBe(404);
  });
});

describe('settings', () => {
  it('reads defaults, patches, resets with null and records each change', async () => {
    const path = `/v1/projects/${acme.projectId}/settings`;
    const initial = await gw.request('GET', path, { key: acme.key });
    expect(initial.body).toMatchObject({
      project_id: acme.projectId,
      overrides: {},
      settings: { approval_ttl_seconds: 86_400, webhook_auto_pause_after: 5 },
    });
    const patched = await gw.request('PATCH', path, {
      key: acme.key,
      body: { approval_ttl_seconds: 900, ted_merchant_allowlist_fallback: true },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.overrides).toEqual({
      approval_ttl_seconds: 900,
      ted_merchant_allowlist_fallback: true,
    });
    const reset = await gw.request('PATCH', path, { key: acme.key, body: { approval_ttl_seconds: null } });
    expect(reset.body.settings.approval_ttl_seconds).toBe(86_400);
    const history = await gw.request('GET', `${path}/history`, { key: acme.key });
    expect(history.status).toBe(200);
    expect(history.body.history).toHaveLength(2);
    expect(history.body.history[0]).toMatchObject({
      changed_by: `key:${acme.keyId}`,
      changes: { approval_ttl_seconds: { from: 900, to: null } },
    });
    expect(history.body.history[1].changes).toEqual({
      approval_ttl_seconds: { from: null, to: 900 },
      ted_merchant_allowlist_fallback: { from: null, to: true },
    });
  });

  it('refuses a bad value naming the key and changes nothing', async () => {
    const path = `/v1/projects/${acme.projectId}/settings`;
    const before = await gw.request('GET', path, { key: acme.key });
    for (const body of [
      { approval_ttl_seconds: 'soon' },
      { receipt_timezone: 'Mars/Olympus' },
      { unknown_key: 1 },
    ]) {
      const result = await gw.request('PATCH', path, { key: acme.key, body });
      expect(result.status).toBe(400);
      expect(result.body.error.code).toBe('invalid_body');
      expect(result.body.error.details.key).toBe(Object.keys(body)[0]);
    }
    expect((await gw.request('GET', path, { key: acme.key })).body).toEqual(before.body);
  });
});

describe('members (operator only)', () => {
  let owner: string;
  let admin: string;
  let member: string;
  beforeAll(async () => {
    const add = async (email: string, role: string) =>
      (
        await gw.operator('POST', `/v1/orgs/${acme.orgId}/users`, {
          body: { email, role, display_name: email.split('@')[0] },
        })
      ).body.id as string;
    owner = await add('owner@acme.test', 'owner');
    admin = await add('admin@acme.test', 'admin');
    member = await add('member@acme.test', 'member');
  });

  it('lists owner, admins, members, oldest first, with their source', async () => {
    const result = await gw.operator('GET', `/v1/projects/${acme.projectId}/members`);
    expect(result.status).toBe(200);
    expect(
      result.body.members.map((m: { user_id: string; role: string; source: string }) => [
        m.user_id,
        m.role,
        m.source,
      ]),
    ).toEqual([
      [owner, 'owner', 'org'],
      [admin, 'admin', 'org'],
      [member, 'member', 'org'],
    ]);
    expect(result.body.members[0]).toEqual({
      user_id: owner,
      role: 'owner',
      source: 'org',
      email: 'owner@acme.test',
      display_name: 'owner',
      avatar_url: null,
      added_at: expect.any(String),
    });
  });

  it('sets, changes and removes a project-level role', async () => {
    const added = await gw.operator('POST', `/v1/projects/${acme.projectId}/members`, {
      body: { user_id: member, role: 'admin' },
      user: admin,
    });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ user_id: member, role: 'admin', source: 'project' });
    const changed = await gw.operator('PATCH', `/v1/projects/${acme.projectId}/members/${member}`, {
      body: { role: 'member' },
      user: owner,
    });
    expect(changed.body).toMatchObject({ role: 'member', source: 'project' });
    expect(
      (await gw.operator('DELETE', `/v1/projects/${acme.projectId}/members/${member}`, { user: admin }))
        .status,
    ).toBe(204);
    expect(
      (await gw.operator('DELETE', `/v1/projects/${acme.projectId}/members/${member}`, { user: admin }))
        .status,
    ).toBe(204);
  });

  it('refuses to narrow an owner, to name a non-member, or to act as a plain member', async () => {
    const ownerWrite = await gw.operator('POST', `/v1/projects/${acme.projectId}/members`, {
      body: { user_id: owner, role: 'member' },
    });
    expect(ownerWrite.status).toBe(409);
    expect(ownerWrite.body.error.code).toBe('cannot_override_owner');
    const stranger = await gw.operator('POST', `/v1/projects/${acme.projectId}/members`, {
      body: { user_id: 'usr_nobody', role: 'member' },
    });
    expect(stranger.status).toBe(404);
    expect(stranger.body.error.code).toBe('user_not_in_org');
    const low = await gw.operator('POST', `/v1/projects/${acme.projectId}/members`, {
      body: { user_id: admin, role: 'member' },
      user: member,
    });
    expect(low.status).toBe(403);
    expect(low.body).toEqual({ error: 'insufficient_role', required: 'admin' });
    const missing = await gw.operator('PATCH', `/v1/projects/${acme.projectId}/members/${admin}`, {
      body: { role: 'member' },
    });
    expect(missing.status).toBe(404);
  });

  it('answers 401 to API keys', async () => {
    const result = await gw.request('GET', `/v1/projects/${acme.projectId}/members`, { key: acme.key });
    expect(result.status).toBe(401);
    expect(result.body).toEqual({ error: 'unauthorized' });
  });

  it("keeps a service call scoped to one organization out of another organization's project", async () => {
    const result = await gw.operator('GET', `/v1/projects/${other.projectId}/members`, {
      project: acme.projectId,
    });
    expect(result.status).toBe(404);
  });
});

describe('tenant isolation', () => {
  it("answers 404 on every project route for another organization's project and changes nothing", async () => {
    const foreign = other.projectId;
    const calls: Array<[string, string, unknown?]> = [
      ['GET', `/v1/projects/${foreign}`],
      ['PATCH', `/v1/projects/${foreign}`, { name: 'Hijacked' }],
      ['PATCH', `/v1/projects/${foreign}`, { is_default: true }],
      ['DELETE', `/v1/projects/${foreign}`],
      ['GET', `/v1/projects/${foreign}/settings`],
      ['PATCH', `/v1/projects/${foreign}/settings`, { approval_ttl_seconds: 600 }],
      ['GET', `/v1/projects/${foreign}/settings/history`],
    ];
    for (const [method, path, body] of calls) {
      const result = await gw.request(method, path, { key: acme.key, body });
      expect([method, path, result.status, result.body.error?.code]).toEqual([
        method,
        path,
        404,
        'not_found',
      ]);
    }
    const row = await gw.db.one(
      sql.unsafe`SELECT name, is_default, settings FROM projects WHERE id = ${foreign}`,
    );
    expect(row).toEqual({ name: 'Default', is_default: true, settings: {} });
    const list = await gw.request('GET', '/v1/projects?limit=100', { key: acme.key });
    expect(list.body.projects.some((p: { id: string }) => p.id === foreign)).toBe(false);
  });
});
