// Sessions through HTTP: the servers a project can open, opening a session on them (only connected
// providers), listing, reading, closing, the scopes each operation needs, the project's session quota
// counted in PostgreSQL, and revoking a key ending the sessions opened with it.
import { API_KEY_SANDBOX } from '../providers/mocks/auth-api-key';
import { startGateway, type Gateway, type Tenant } from './support/harness';

let gw: Gateway;
let t: Tenant;
beforeAll(async () => {
  gw = await startGateway({ worker: false });
  t = await gw.createTenant();
  const connected = await gw.request('POST', '/v1/providers/pix-psp/connections', {
    key: t.key,
    body: { credentials: API_KEY_SANDBOX },
  });
  if (connected.status !== 201) throw new Error(connected.text);
});
afterAll(async () => {
  await gw?.stop();
});

const open = (body: unknown, key = t.key) => gw.request('POST', '/v1/sessions', { key, body });

describe('the servers a session can open', () => {
  it("lists the gateway's own tools and the connected providers, not the others", async () => {
    const r = await gw.request('GET', '/v1/servers', { key: t.key });
    expect(r.status).toBe(200);
    const ids = r.body.servers.map((s: { id: string }) => s.id);
    expect(ids[0]).toBe('gateway');
    expect(ids).toContain('pix-psp');
    expect(ids).not.toContain('ted-bank');
    const gateway = r.body.servers[0];
    expect(gateway.tools.map((tool: { name: string }) => tool.name)).toEqual([
      'wallet.balances',
      'wallet.execute',
      'consumer_payments.execute',
      'wallet.transfer',
      'payment_links.create',
      'payment_links.list',
      'approvals.status',
    ]);
    const pix = r.body.servers.find((s: { id: string }) => s.id === 'pix-psp');
    expect(pix.tools.map((tool: { name: string }) => tool.name)).toEqual([
      'pix-psp.pix_send',
      'pix-psp.pix_charge_create',
      'pix-psp.pix_key_lookup',
    ]);
    expect(pix.connection_id).toMatch(/^conn_/);
    expect(pix.tools[2].input_schema).toMatchObject({ type: 'object', required: ['pix_key'] });
  });

  it('answers a restricted key without servers:read with the flat 403 naming the scope', async () => {
    const { key } = await gw.createKey(t.projectId, { scopes: ['sessions:read'] });
    const r = await gw.request('GET', '/v1/servers', { key });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({
      error: 'forbidden',
      message: expect.stringContaining('servers:read'),
      status: 403,
    });
  });
});

describe('opening, reading and closing sessions', () => {
  it('opens a session on connected servers and reads it back, with its tools', async () => {
    const r = await open({
      servers: ['gateway', 'pix-psp'],
      agent_id: 'agent-7',
      metadata: { purpose: 'tests' },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      object: 'session',
      org_id: t.orgId,
      project_id: t.projectId,
      agent_id: 'agent-7',
      servers: ['gateway', 'pix-psp'],
      status: 'active',
      close_reason: null,
      closed_at: null,
      metadata: { purpose: 'tests' },
    });
    expect(r.body.id).toMatch(/^ses_[0-9a-z]{26}$/);
    const read = await gw.request('GET', `/v1/sessions/${r.body.id}`, { key: t.key });
    expect(read.body).toEqual(r.body);
    const tools = await gw.request('GET', `/v1/sessions/${r.body.id}/tools`, { key: t.key });
    expect(tools.body.tools.map((tool: { name: string }) => tool.name)).toEqual([
      'wallet.balances',
      'wallet.execute',
      'consumer_payments.execute',
      'wallet.transfer',
      'payment_links.create',
      'payment_links.list',
      'approvals.status',
      'pix-psp.pix_send',
      'pix-psp.pix_charge_create',
      'pix-psp.pix_key_lookup',
    ]);
  });

  it('uses the session id as the agent when none is named', async () => {
    const r = await open({ servers: ['gateway'] });
    expect(r.body.agent_id).toBe(r.body.id);
  });

  it('refuses an unknown server with 404 and an unconnected one with 424, and opens nothing', async () => {
    const before = (await gw.request('GET', '/v1/sessions?limit=100', { key: t.key })).body.sessions.length;
    const unknown = await open({ servers: ['gateway', 'no-such-server'] });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({
      code: 'server_unknown',
      details: { server_ids: ['no-such-server'] },
    });
    const unconnected = await open({ servers: ['ted-bank'] });
    expect(unconnected.status).toBe(424);
    expect(unconnected.body.error).toMatchObject({
      code: 'not_connected',
      details: { server_ids: ['ted-bank'] },
    });
    const empty = await open({ servers: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('invalid_body');
    expect((await gw.request('GET', '/v1/sessions?limit=100', { key: t.key })).body.sessions.length).toBe(
      before,
    );
  });

  it('lists sessions newest first in pages, filtered by status', async () => {
    const tenant = await gw.createTenant();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await open({ servers: ['gateway'] }, tenant.key)).body.id);
    const first = await gw.request('GET', '/v1/sessions?limit=2', { key: tenant.key });
    expect(first.body.sessions.map((s: { id: string }) => s.id)).toEqual([ids[2], ids[1]]);
    expect(first.body.has_more).toBe(true);
    const second = await gw.request('GET', `/v1/sessions?limit=2&starting_after=${ids[1]}`, {
      key: tenant.key,
    });
    expect(second.body).toMatchObject({ sessions: [{ id: ids[0] }], has_more: false });
    await gw.request('POST', `/v1/sessions/${ids[1]}/close`, { key: tenant.key });
    const closed = await gw.request('GET', '/v1/sessions?status=closed', { key: tenant.key });
    expect(closed.body.sessions.map((s: { id: string }) => s.id)).toEqual([ids[1]]);
  });

  it('closes a session once; closing again answers it unchanged', async () => {
    const s = (await open({ servers: ['gateway'] })).body;
    const closed = await gw.request('POST', `/v1/sessions/${s.id}/close`, { key: t.key });
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({ status: 'closed', close_reason: 'closed_by_caller' });
    expect(closed.body.closed_at).not.toBeNull();
    const again = await gw.request('POST', `/v1/sessions/${s.id}/close`, { key: t.key });
    expect(again.body).toEqual(closed.body);
    const call = await gw.request('POST', `/v1/sessions/${s.id}/tool-calls`, {
      key: t.key,
      body: { tool: 'wallet.balances', arguments: { wallet_id: 'wal_x' } },
    });
    expect(call.status).toBe(409);
    expect(call.body.error).toMatchObject({
      code: 'session_closed',
      details: { close_reason: 'closed_by_caller' },
    });
  });

  it("hides another project's session as not found, and refuses a malformed id", async () => {
    const other = await gw.createTenant();
    const s = (await open({ servers: ['gateway'] })).body;
    for (const path of [
      `/v1/sessions/${s.id}`,
      `/v1/sessions/${s.id}/tools`,
      `/v1/sessions/${s.id}/tool-calls`,
    ]) {
      const r = await gw.request('GET', path, { key: other.key });
      expect([path, r.status, r.body.error.code]).toEqual([path, 404, 'not_found']);
    }
    const closing = await gw.request('POST', `/v1/sessions/${s.id}/close`, { key: other.key });
    expect(closing.status).toBe(404);
    expect((await gw.request('GET', `/v1/sessions/${s.id}`, { key: t.key })).body.status).toBe('active');
    const malformed = await gw.request('GET', '/v1/sessions/ses_../tools', { key: t.key });
    expect(malformed.status).toBe(400);
  });

  it('gives each operation its own scope: sessions:create opens and closes, sessions:read reads', async () => {
    const creator = (await gw.createKey(t.projectId, { scopes: ['sessions:create'] })).key;
    const reader = (await gw.createKey(t.projectId, { scopes: ['sessions:read'] })).key;
    const s = await open({ servers: ['gateway'] }, creator);
    expect(s.status).toBe(201);
    expect((await open({ servers: ['gateway'] }, reader)).status).toBe(403);
    expect((await gw.request('GET', `/v1/sessions/${s.body.id}`, { key: reader })).status).toBe(200);
    expect((await gw.request('GET', `/v1/sessions/${s.body.id}`, { key: creator })).status).toBe(403);
    const call = await gw.request('POST', `/v1/sessions/${s.body.id}/tool-calls`, {
      key: reader,
      body: { tool: 'wallet.balances', arguments: {} },
    });
    expect(call.status).toBe(403);
    expect(call.body.message).toContain('tools:execute');
  });
});

describe('the session quota', () => {
  it('refuses a session past session_max_active with the flat quota_exceeded, and admits one after a close', async () => {
    const tenant = await gw.createTenant();
    const patched = await gw.request('PATCH', `/v1/projects/${tenant.projectId}/settings`, {
      key: tenant.key,
      body: { session_max_active: 2 },
    });
    expect(patched.status).toBe(200);
    const opened = await Promise.all([1, 2, 3, 4].map(() => open({ servers: ['gateway'] }, tenant.key)));
    expect(opened.map((r) => r.status).sort()).toEqual([201, 201, 403, 403]);
    const refused = opened.find((r) => r.status === 403)!;
    expect(refused.body).toEqual({
      error: 'quota_exceeded',
      message: expect.any(String),
      setting: 'session_max_active',
      limit: 2,
      active: 2,
    });
    const listed = await gw.request('GET', '/v1/sessions', { key: tenant.key });
    expect(listed.body.sessions).toHaveLength(2);
    await gw.request('POST', `/v1/sessions/${listed.body.sessions[0].id}/close`, { key: tenant.key });
    expect((await open({ servers: ['gateway'] }, tenant.key)).status).toBe(201);
  });
});

describe('revoking a key', () => {
  it('ends every session opened with it and leaves the others open', async () => {
    const doomed = await gw.createKey(t.projectId, { name: 'doomed' });
    const a = (await open({ servers: ['gateway'] }, doomed.key)).body;
    const b = (await open({ servers: ['gateway', 'pix-psp'] }, doomed.key)).body;
    const kept = (await open({ servers: ['gateway'] })).body;
    const revoked = await gw.operator('DELETE', `/v1/api-keys/${doomed.id}`, { project: t.projectId });
    expect(revoked.status).toBeLessThan(300);
    for (const id of [a.id, b.id]) {
      const r = await gw.request('GET', `/v1/sessions/${id}`, { key: t.key });
      expect(r.body).toMatchObject({ status: 'closed', close_reason: 'key_revoked' });
    }
    expect((await gw.request('GET', `/v1/sessions/${kept.id}`, { key: t.key })).body.status).toBe('active');
    const call = await gw.request('POST', `/v1/sessions/${a.id}/tool-calls`, {
      key: t.key,
      body: { tool: 'wallet.balances', arguments: { wallet_id: 'wal_x' } },
    });
    expect(call.status).toBe(409);
    expect(call.body.error).toMatchObject({
      code: 'session_closed',
      details: { close_reason: 'key_revoked' },
    });
  });
});
