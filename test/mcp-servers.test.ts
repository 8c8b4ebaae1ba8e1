// Tenant tool servers over HTTP: validating an upstream through a real MCP handshake (what it found, or why it
// failed, storing nothing; private addresses refused in live mode), registering one with priced tools (the
// credential sealed and never returned, prices converted to minor units, slugs unique, bad input refused in
// the envelope with nothing written), reading, listing, updating, repricing and deleting it.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { sql } from 'slonik';
import { z } from 'zod';
import { MCP_UPSTREAM_AUTH, type McpUpstreamMock } from '../providers/mocks/mcp-upstream';
import { startGateway, type Gateway, type Tenant } from './support/harness';

let gw: Gateway;
let upstream: McpUpstreamMock;
let t: Tenant;
beforeAll(async () => {
  gw = await startGateway();
  upstream = gw.mocks.mcp_upstream as McpUpstreamMock;
  t = await gw.createTenant();
});
afterAll(async () => {
  await gw?.stop();
});

const count = async (table: 'tool_servers' | 'tool_server_tools' | 'wallets') =>
  gw.db.oneFirst(
    sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM ${sql.identifier([table])}`,
  );

let slugSeq = 0;
const createBody = (extra: Record<string, unknown> = {}) => ({
  slug: `freight-${++slugSeq}-${Date.now().toString(36)}`,
  name: 'Freight quotes',
  description: 'Quotes freight between cities',
  overview_md: '# Freight',
  category: 'shipping',
  upstream_url: upstream.url,
  upstream_auth: MCP_UPSTREAM_AUTH,
  platform_fee_bps: 1500,
  tools: [
    { tool_name: 'echo', price: '0' },
    { tool_name: 'quote', price: '0.25', description: 'A freight quote' },
  ],
  ...extra,
});

describe('POST /v1/mcp-servers/validate', () => {
  it('answers what the handshake found: tools with input schemas, protocol version, latency', async () => {
    const r = await gw.request('POST', '/v1/mcp-servers/validate', {
      key: t.key,
      body: { upstream_url: upstream.url, auth: MCP_UPSTREAM_AUTH },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      ok: true,
      protocol_version: expect.any(String),
      latency_ms: expect.any(Number),
    });
    const quote = r.body.tools.find((tool: { name: string }) => tool.name === 'quote');
    expect(quote.input_schema).toMatchObject({ type: 'object', required: ['from', 'to'] });
    expect(r.body.tools.map((tool: { name: string }) => tool.name).sort()).toEqual(
      ['echo', 'fail', 'quote', 'slow', 'vanish'].sort(),
    );
  });

  it('reports auth_refused when the upstream refuses the credential, and stores nothing', async () => {
    const before = await count('tool_servers');
    const r = await gw.request('POST', '/v1/mcp-servers/validate', {
      key: t.key,
      body: { upstream_url: upstream.url, auth: { header: MCP_UPSTREAM_AUTH.header, value: 'wrong' } },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: false, failure: { code: 'auth_refused' } });
    expect(await count('tool_servers')).toBe(before);
  });

  it('reports not_mcp for an HTTP server that does not speak MCP', async () => {
    const r = await gw.request('POST', '/v1/mcp-servers/validate', {
      key: t.key,
      body: { upstream_url: upstream.url.replace('/mcp', '/not-mcp') },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: false, failure: { code: 'not_mcp' } });
  });

  it('reports unreachable when nothing listens', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const r = await gw.request('POST', '/v1/mcp-servers/validate', {
      key: t.key,
      body: { upstream_url: `http://127.0.0.1:${port}/mcp` },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: false, failure: { code: 'unreachable' } });
  });

  it('reports timed_out when the upstream accepts but never answers', async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const r = await gw.request('POST', '/v1/mcp-servers/validate', {
        key: t.key,
        body: { upstream_url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/mcp` },
      });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ ok: false, failure: { code: 'timed_out' } });
    } finally {
      sockets.forEach((s) => s.destroy());
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('refuses a loopback upstream in live mode with upstream_url_forbidden', async () => {
    const live = await gw.createTenant({ environment: 'live' });
    const r = await gw.request('POST', '/v1/mcp-servers/validate', {
      key: live.key,
      body: { upstream_url: upstream.url, auth: MCP_UPSTREAM_AUTH },
    });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('upstream_url_forbidden');
    expect(upstream.calls.echo ?? 0).toBe(0);
  });

  it('refuses an upstream URL the URL parser cannot read, in the envelope', async () => {
    const r = await gw.request('POST', '/v1/mcp-servers/validate', {
      key: t.key,
      body: { upstream_url: 'http://127.0.0.1:99999/mcp' },
    });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: { code: 'invalid_body' }, request_id: expect.any(String) });
  });

  it('refuses a body without upstream_url in the envelope', async () => {
    const r = await gw.request('POST', '/v1/mcp-servers/validate', {
      key: t.key,
      body: { auth: MCP_UPSTREAM_AUTH },
    });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: { code: 'invalid_body' }, request_id: expect.any(String) });
  });
});

describe('registering and managing a tool server', () => {
  it('creates a server with its tools priced in minor units and never returns the credential', async () => {
    const r = await gw.request('POST', '/v1/mcp-servers', { key: t.key, body: createBody() });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      object: 'mcp_server',
      currency: 'BRL',
      platform_fee_bps: 1500,
      upstream_auth: { header: MCP_UPSTREAM_AUTH.header },
      active: true,
    });
    expect(r.text).not.toContain(MCP_UPSTREAM_AUTH.value);
    const quote = r.body.tools.find((tool: { tool_name: string }) => tool.tool_name === 'quote');
    expect(quote).toMatchObject({ price: '0.25', price_minor: '25', description: 'A freight quote' });
    expect(quote.input_schema).toMatchObject({ required: ['from', 'to'] });
    const stored = await gw.db.one(sql.type(z.object({ auth_ciphertext: z.string() }))`
      SELECT auth_ciphertext FROM tool_servers WHERE id = ${r.body.id}`);
    expect(stored.auth_ciphertext).not.toContain(MCP_UPSTREAM_AUTH.value);
    const read = await gw.request('GET', `/v1/mcp-servers/${r.body.id}`, { key: t.key });
    expect(read.status).toBe(200);
    expect(read.text).not.toContain(MCP_UPSTREAM_AUTH.value);
    const list = await gw.request('GET', '/v1/mcp-servers', { key: t.key });
    expect(list.body.mcp_servers.map((s: { id: string }) => s.id)).toContain(r.body.id);
  });

  it.each([
    [
      'a price with more decimals than BRL has',
      { tools: [{ tool_name: 'quote', price: '0.001' }] },
      400,
      'invalid_body',
    ],
    ['a fee rate above 10000', { platform_fee_bps: 10001 }, 400, 'invalid_body'],
    [
      'a tool the upstream does not list',
      { tools: [{ tool_name: 'teleport', price: '1' }] },
      422,
      'tool_not_upstream',
    ],
    [
      'the same tool twice',
      {
        tools: [
          { tool_name: 'quote', price: '1' },
          { tool_name: 'quote', price: '2' },
        ],
      },
      400,
      'invalid_body',
    ],
    ['a slug naming a catalog provider', { slug: 'pix-psp' }, 409, 'slug_conflict'],
    [
      'an upstream refusing the credential',
      { upstream_auth: { header: 'x-upstream-key', value: 'nope' } },
      422,
      'upstream_unavailable',
    ],
    ['an unknown consumer', { consumer_id: 'cns_missing' }, 404, 'consumer_not_found'],
  ])('refuses %s and writes nothing', async (_label, extra, status, code) => {
    const before = [await count('tool_servers'), await count('tool_server_tools'), await count('wallets')];
    const r = await gw.request('POST', '/v1/mcp-servers', { key: t.key, body: createBody(extra) });
    expect(r.status).toBe(status);
    expect(r.body.error.code).toBe(code);
    expect([await count('tool_servers'), await count('tool_server_tools'), await count('wallets')]).toEqual(
      before,
    );
  });

  it('answers a consumer of another project of the organization exactly as an unknown one, and writes nothing', async () => {
    const sibling = await gw.request('POST', '/v1/projects', {
      key: t.key,
      body: { name: 'Sibling', slug: `sibling-${Date.now()}` },
    });
    expect(sibling.status).toBe(201);
    const siblingKey = await gw.createKey(sibling.body.id);
    const consumer = await gw.request('POST', '/v1/consumers', {
      key: siblingKey.key,
      body: { display_name: 'Sibling consumer' },
    });
    expect(consumer.status).toBe(201);
    const before = [await count('tool_servers'), await count('tool_server_tools'), await count('wallets')];
    const foreign = await gw.request('POST', '/v1/mcp-servers', {
      key: t.key,
      body: createBody({ consumer_id: consumer.body.id }),
    });
    const missing = await gw.request('POST', '/v1/mcp-servers', {
      key: t.key,
      body: createBody({ consumer_id: 'cns_missing' }),
    });
    expect([foreign.status, missing.status]).toEqual([404, 404]);
    // The same code, words and details as an id that exists nowhere: nothing tells the two apart.
    expect(missing.body.error.code).toBe('consumer_not_found');
    expect(foreign.body.error).toEqual({ ...missing.body.error, details: { consumer_id: consumer.body.id } });
    expect([await count('tool_servers'), await count('tool_server_tools'), await count('wallets')]).toEqual(
      before,
    );
    // The sibling project itself may name its own consumer.
    const own = await gw.request('POST', '/v1/mcp-servers', {
      key: siblingKey.key,
      body: createBody({ consumer_id: consumer.body.id }),
    });
    expect(own.status).toBe(201);
  });

  it('refuses a slug already taken by another account', async () => {
    const body = createBody();
    expect((await gw.request('POST', '/v1/mcp-servers', { key: t.key, body })).status).toBe(201);
    const other = await gw.createTenant();
    const r = await gw.request('POST', '/v1/mcp-servers', { key: other.key, body: { ...body } });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('slug_conflict');
  });

  it('gives a slug to exactly one of several racing creates; the others get slug_conflict', async () => {
    const body = createBody();
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => gw.request('POST', '/v1/mcp-servers', { key: t.key, body })),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    for (const r of answers.filter((a) => a.status === 409)) expect(r.body.error.code).toBe('slug_conflict');
    const rows = await gw.db.oneFirst(sql.type(z.object({ n: z.number() }))`
      SELECT count(*)::int AS n FROM tool_servers WHERE slug = ${body.slug}`);
    expect(rows).toBe(1);
  });

  it('updates the listing, reprices and pauses a tool, and deletes the server', async () => {
    const created = (await gw.request('POST', '/v1/mcp-servers', { key: t.key, body: createBody() })).body;
    const patched = await gw.request('PATCH', `/v1/mcp-servers/${created.id}`, {
      key: t.key,
      body: { name: 'Freight quotes v2', active: false },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      name: 'Freight quotes v2',
      active: false,
      description: created.description,
    });
    const priced = await gw.request('PATCH', `/v1/mcp-servers/${created.id}/tools/quote`, {
      key: t.key,
      body: { price: '1.5' },
    });
    expect(priced.status).toBe(200);
    expect(priced.body.tools.find((x: { tool_name: string }) => x.tool_name === 'quote')).toMatchObject({
      price: '1.5',
      price_minor: '150',
    });
    const badPrice = await gw.request('PATCH', `/v1/mcp-servers/${created.id}/tools/quote`, {
      key: t.key,
      body: { price: '1.005' },
    });
    expect(badPrice.status).toBe(400);
    expect(badPrice.body.error.code).toBe('invalid_body');
    const unknownTool = await gw.request('PATCH', `/v1/mcp-servers/${created.id}/tools/teleport`, {
      key: t.key,
      body: { active: false },
    });
    expect(unknownTool.status).toBe(404);
    expect(unknownTool.body.error.code).toBe('tool_not_found');
    const deleted = await gw.request('DELETE', `/v1/mcp-servers/${created.id}`, { key: t.key });
    expect(deleted.body).toEqual({ id: created.id, deleted: true });
    expect((await gw.request('GET', `/v1/mcp-servers/${created.id}`, { key: t.key })).status).toBe(404);
    const tools = await gw.db.oneFirst(sql.type(z.object({ n: z.number() }))`
      SELECT count(*)::int AS n FROM tool_server_tools WHERE server_id = ${created.id}`);
    expect(tools).toBe(0);
  });

  it("answers 404 for another project's server and refuses an empty patch", async () => {
    const created = (await gw.request('POST', '/v1/mcp-servers', { key: t.key, body: createBody() })).body;
    const other = await gw.createTenant();
    expect((await gw.request('GET', `/v1/mcp-servers/${created.id}`, { key: other.key })).status).toBe(404);
    const empty = await gw.request('PATCH', `/v1/mcp-servers/${created.id}`, { key: t.key, body: {} });
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('invalid_body');
  });
});
