// A published generated server as a provider of its project only, and its retirement, through HTTP and
// MCP on both Temporal servers: listed among the project's providers and found by tool search beside the
// catalog's, never by another project of the same organization (which gets the spec's 404s); archived, it
// stays readable while its tools leave sessions, search and the providers list, calls on it answer 404
// `server_unknown` (sessions opened before included) and its connection is kept but unusable; unarchived,
// it serves again.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { PETSTORE_API_KEY, PETSTORE_DOCUMENT, type PetstoreMock } from '../providers/mocks/petstore';
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';

describe.each(TEMPORAL_SERVERS)(
  'a generated provider of one project on the %s Temporal server',
  (temporal) => {
    let gw: Gateway;
    let acme: Tenant;
    // Another project of Acme's organization, with its own key.
    let sibling: { key: string; projectId: string };
    let server: { id: string; slug: string };
    let connectionId: string;
    let session: string;
    let catalogSize: number;

    beforeAll(async () => {
      gw = await startGateway({ temporal });
      acme = await gw.createTenant({ name: 'Acme' });
      const project = await gw.request('POST', '/v1/projects', {
        key: acme.key,
        body: { name: 'Acme sibling', slug: 'acme-sibling' },
      });
      expect(project.status).toBe(201);
      sibling = { key: (await gw.createKey(project.body.id)).key, projectId: project.body.id };
      const petstore = gw.mocks.petstore as PetstoreMock;
      const draft = await gw.request('POST', '/v1/generate/servers', {
        key: acme.key,
        body: {
          document: PETSTORE_DOCUMENT,
          slug: `acme-pets-${temporal}`,
          base_urls: { test: `${petstore.url}/api/v3` },
        },
      });
      expect(draft.status).toBe(201);
      server = { id: draft.body.id, slug: draft.body.slug };
      const published = await gw.request('POST', `/v1/generate/servers/${server.id}/publish`, {
        key: acme.key,
      });
      expect(published.status).toBe(200);
      const connection = await gw.request('POST', `/v1/providers/${server.slug}/connections`, {
        key: acme.key,
        body: { credentials: { api_key: PETSTORE_API_KEY } },
      });
      expect(connection.status).toBe(201);
      connectionId = connection.body.id;
      const opened = await gw.request('POST', '/v1/sessions', {
        key: acme.key,
        body: { servers: ['gateway', server.slug] },
      });
      expect(opened.status).toBe(201);
      session = opened.body.id;
      const catalog = await gw.request('GET', '/v1/providers', { key: sibling.key });
      catalogSize = catalog.body.total;
    });
    afterAll(async () => {
      await gw?.stop();
    });

    const providers = (key: string, query = '') => gw.request('GET', `/v1/providers${query}`, { key });
    const search = (key: string, intent: string) =>
      gw.request('POST', '/v1/tools/search', { key, body: { intent, limit: 5 } });
    const call = (tool: string, args: Record<string, unknown>) =>
      gw.request('POST', `/v1/sessions/${session}/tool-calls`, {
        key: acme.key,
        body: { tool: `${server.slug}.${tool}`, arguments: args },
      });
    const ids = (body: { servers: Array<{ id: string }> }) => body.servers.map((s) => s.id);

    async function withMcp<T>(run: (client: Client) => Promise<T>): Promise<T> {
      const client = new Client(
        { name: 'gateway-test', version: '1.0.0' },
        { versionNegotiation: { mode: 'auto' } },
      );
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${gw.url}/v1/sessions/${session}/mcp`), {
          requestInit: { headers: { Authorization: `Bearer ${acme.key}` } },
        }),
      );
      try {
        return await run(client);
      } finally {
        await client.close();
      }
    }

    describe('while published', () => {
      it("lists it after the catalog among the project's providers, counted in total, filters applying", async () => {
        const all = await providers(acme.key);
        expect(all.status).toBe(200);
        expect(all.body.total).toBe(catalogSize + 1);
        expect(all.body.filtered).toBe(catalogSize + 1);
        expect(ids(all.body).at(-1)).toBe(server.slug);
        expect(all.body.servers.at(-1)).toMatchObject({
          id: server.slug,
          name: 'Swagger Petstore - OpenAPI 3.0',
          category: 'generated',
          country: 'ZZ',
          auth_type: 'api_key',
          tools_count: 19,
          sandbox_available: true,
          engine_status: 'none',
        });
        const generated = await providers(acme.key, '?category=generated');
        expect([generated.body.total, generated.body.filtered, ids(generated.body)]).toEqual([
          catalogSize + 1,
          1,
          [server.slug],
        ]);
        const byText = await providers(acme.key, '?q=petstore');
        expect(ids(byText.body)).toEqual([server.slug]);
        const byTool = await providers(acme.key, '?q=find_pets_by_tags');
        expect(ids(byTool.body)).toEqual([server.slug]);
        const brazil = await providers(acme.key, '?country=BR');
        expect(ids(brazil.body)).not.toContain(server.slug);
      });

      it('finds its tools by search for its project, ranked beside the catalog', async () => {
        const found = await search(acme.key, 'find pet by id');
        expect(found.status).toBe(200);
        expect(found.body.hits[0]).toMatchObject({
          tool_name: `${server.slug}.get_pet_by_id`,
          confidence: 1,
        });
        // A catalog tool still ranks first for its own words.
        const pix = await search(acme.key, 'create a Pix charge QR code to receive money');
        expect(pix.body.hits[0].tool_name).toBe('pix-psp.pix_charge_create');
      });

      it('stays invisible to another project of the same organization, which gets the 404s', async () => {
        const list = await providers(sibling.key);
        expect(list.body.total).toBe(catalogSize);
        expect(ids(list.body)).not.toContain(server.slug);
        const filtered = await providers(sibling.key, '?category=generated');
        expect(filtered.body).toMatchObject({ filtered: 0, servers: [] });
        const found = await search(sibling.key, 'find pet by id');
        expect(found.status).toBe(200);
        expect(
          found.body.hits.filter((hit: { tool_name: string }) => hit.tool_name.startsWith(`${server.slug}.`)),
        ).toEqual([]);
        const provider = await gw.request('GET', `/v1/providers/${server.slug}`, { key: sibling.key });
        expect([provider.status, provider.body.error.code]).toEqual([404, 'server_unknown']);
        const verify = await gw.request('POST', `/v1/providers/${server.slug}/verify-connection`, {
          key: sibling.key,
        });
        expect([verify.status, verify.body]).toEqual([404, { error: 'not_found', server_id: server.slug }]);
        const opened = await gw.request('POST', '/v1/sessions', {
          key: sibling.key,
          body: { servers: [server.slug] },
        });
        expect([opened.status, opened.body.error.code]).toEqual([404, 'server_unknown']);
        const archive = await gw.request('POST', `/v1/generate/servers/${server.id}/archive`, {
          key: sibling.key,
        });
        expect([archive.status, archive.body.error.code]).toEqual([404, 'not_found']);
        const still = await gw.request('GET', `/v1/generate/servers/${server.id}`, { key: acme.key });
        expect(still.body.status).toBe('published');
      });

      it('answers tool calls in a session opened now', async () => {
        const res = await call('get_pet_by_id', { petId: 1 });
        expect([res.status, res.body.status, res.body.output.name]).toEqual([200, 'success', 'Rex']);
      });
    });

    describe('archived', () => {
      let archivedAt: string;
      beforeAll(async () => {
        const res = await gw.request('POST', `/v1/generate/servers/${server.id}/archive`, { key: acme.key });
        expect(res.status).toBe(200);
        archivedAt = res.body.updated_at;
      });

      it('stays readable with status archived, its versions and tools kept', async () => {
        const detail = await gw.request('GET', `/v1/generate/servers/${server.id}`, { key: acme.key });
        expect([detail.status, detail.body.status, detail.body.published_version, detail.body.slug]).toEqual([
          200,
          'archived',
          1,
          server.slug,
        ]);
        expect(detail.body.tools).toHaveLength(19);
        const list = await gw.request('GET', '/v1/generate/servers', { key: acme.key });
        expect(list.body.servers).toEqual([expect.objectContaining({ id: server.id, status: 'archived' })]);
        const versions = await gw.request('GET', `/v1/generate/servers/${server.id}/versions`, {
          key: acme.key,
        });
        expect(versions.body.versions).toEqual([
          { version: 1, tool_count: 19, published_at: expect.any(String) },
        ]);
      });

      it('archiving again changes nothing, and publishing is refused until unarchived', async () => {
        const again = await gw.request('POST', `/v1/generate/servers/${server.id}/archive`, {
          key: acme.key,
        });
        expect([again.status, again.body.status, again.body.updated_at]).toEqual([
          200,
          'archived',
          archivedAt,
        ]);
        const publish = await gw.request('POST', `/v1/generate/servers/${server.id}/publish`, {
          key: acme.key,
        });
        expect([publish.status, publish.body.error.code]).toEqual([409, 'server_archived']);
        const versions = await gw.request('GET', `/v1/generate/servers/${server.id}/versions`, {
          key: acme.key,
        });
        expect(versions.body.versions).toHaveLength(1);
      });

      it('leaves the providers list and tool search, and the providers routes answer server_unknown', async () => {
        const list = await providers(acme.key);
        expect(list.body.total).toBe(catalogSize);
        expect(ids(list.body)).not.toContain(server.slug);
        const found = await search(acme.key, 'find pet by id');
        expect(
          found.body.hits.filter((hit: { tool_name: string }) => hit.tool_name.startsWith(`${server.slug}.`)),
        ).toEqual([]);
        for (const path of [`/v1/providers/${server.slug}`, `/v1/providers/${server.slug}/auth-schema`]) {
          const res = await gw.request('GET', path, { key: acme.key });
          expect([path, res.status, res.body.error.code]).toEqual([path, 404, 'server_unknown']);
        }
        const verify = await gw.request('POST', `/v1/providers/${server.slug}/verify-connection`, {
          key: acme.key,
        });
        expect([verify.status, verify.body]).toEqual([
          404,
          expect.objectContaining({ ok: false, error: 'server_unknown' }),
        ]);
        const opened = await gw.request('POST', '/v1/sessions', {
          key: acme.key,
          body: { servers: [server.slug] },
        });
        expect([opened.status, opened.body.error.code]).toEqual([404, 'server_unknown']);
      });

      it('answers 404 server_unknown to tool calls and proxy_execute in the session opened before', async () => {
        const tools = await gw.request('GET', `/v1/sessions/${session}/tools`, { key: acme.key });
        expect(tools.status).toBe(200);
        expect(
          tools.body.tools.filter((tool: { name: string }) => tool.name.startsWith(`${server.slug}.`)),
        ).toEqual([]);
        const res = await call('get_pet_by_id', { petId: 1 });
        expect([res.status, res.body.error]).toEqual([
          404,
          expect.objectContaining({ code: 'server_unknown', details: { server_id: server.slug } }),
        ]);
        const proxied = await gw.request('POST', `/v1/sessions/${session}/proxy_execute`, {
          key: acme.key,
          body: { server_id: server.slug, method: 'GET', path: '/pet/1' },
        });
        expect([proxied.status, proxied.body.error.code]).toEqual([404, 'server_unknown']);
      });

      it('drops its tools from the MCP listing and answers their calls with server_unknown', async () => {
        await withMcp(async (client) => {
          const { tools } = await client.listTools();
          expect(tools.filter((tool) => tool.name.startsWith(`${server.slug}.`))).toEqual([]);
          expect(tools.some((tool) => tool.name === 'wallet.balances')).toBe(true);
          const result = await client.callTool({
            name: `${server.slug}.get_pet_by_id`,
            arguments: { petId: 1 },
          });
          expect(result.isError).toBe(true);
          expect(result.structuredContent).toMatchObject({ error: { code: 'server_unknown' } });
        });
      });

      it('keeps the connection readable but unusable', async () => {
        const connection = await gw.request('GET', `/v1/connections/${connectionId}`, { key: acme.key });
        expect([connection.status, connection.body.provider, connection.body.status]).toEqual([
          200,
          server.slug,
          'active',
        ]);
        const rotated = await gw.request('POST', `/v1/connections/${connectionId}/rotate`, {
          key: acme.key,
          body: { credentials: { api_key: 'another-key' } },
        });
        expect([rotated.status, rotated.body.error.code]).toEqual([404, 'server_unknown']);
      });
    });

    describe('unarchived', () => {
      it('serves again with its connection, in the session opened before, in the list and in search', async () => {
        const res = await gw.request('POST', `/v1/generate/servers/${server.id}/unarchive`, {
          key: acme.key,
        });
        expect([res.status, res.body.status, res.body.version]).toEqual([200, 'published', '1']);
        const called = await call('get_pet_by_id', { petId: 2 });
        expect([called.status, called.body.status, called.body.output.name]).toEqual([200, 'success', 'Tom']);
        const list = await providers(acme.key);
        expect([list.body.total, ids(list.body).at(-1)]).toEqual([catalogSize + 1, server.slug]);
        const found = await search(acme.key, 'find pet by id');
        expect(found.body.hits[0].tool_name).toBe(`${server.slug}.get_pet_by_id`);
        const again = await gw.request('POST', `/v1/generate/servers/${server.id}/unarchive`, {
          key: acme.key,
        });
        expect([again.status, again.body.status, again.body.updated_at]).toEqual([
          200,
          'published',
          res.body.updated_at,
        ]);
      });

      it('returns a never-published server to draft', async () => {
        const draft = await gw.request('POST', '/v1/generate/servers', {
          key: acme.key,
          body: { document: PETSTORE_DOCUMENT, name: `Draft pets ${temporal}` },
        });
        const archived = await gw.request('POST', `/v1/generate/servers/${draft.body.id}/archive`, {
          key: acme.key,
        });
        expect(archived.body.status).toBe('archived');
        const back = await gw.request('POST', `/v1/generate/servers/${draft.body.id}/unarchive`, {
          key: acme.key,
        });
        expect([back.status, back.body.status, back.body.published_version]).toEqual([200, 'draft', null]);
      });
    });
  },
);
