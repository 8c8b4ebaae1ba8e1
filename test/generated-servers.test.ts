// A generated server's life through HTTP and MCP, from the public Swagger Petstore 3.0 document against
// its mock (a real HTTP server serving the document's paths): generated as a draft (uploaded or fetched
// by URL), reviewed, edited, published, connected with an API key, verified, called over REST, MCP and
// proxy_execute, versioned by publishing again; and invisible to another project, which gets the spec's
// 404s.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { PETSTORE_API_KEY, PETSTORE_DOCUMENT, type PetstoreMock } from '../providers/mocks/petstore';
import { startGateway, type Gateway, type Tenant } from './support/harness';

let gw: Gateway;
let acme: Tenant;
let globex: Tenant;
let petstore: PetstoreMock;
let server: { id: string; slug: string };

beforeAll(async () => {
  gw = await startGateway({ worker: false });
  acme = await gw.createTenant({ name: 'Acme' });
  globex = await gw.createTenant({ name: 'Globex' });
  petstore = gw.mocks.petstore as PetstoreMock;
});
afterAll(async () => gw?.stop());

const parsed = (result: { content?: unknown }) =>
  JSON.parse((result.content as Array<{ text: string }>)[0].text) as Record<string, unknown>;

async function generate(tenant: Tenant, body: Record<string, unknown>) {
  return gw.request('POST', '/v1/generate/servers', { key: tenant.key, body });
}

describe('generating a draft from the Petstore document', () => {
  it('makes one tool per operation, the api_key header its auth, and the base URL stated for the sandbox', async () => {
    const res = await generate(acme, {
      document: PETSTORE_DOCUMENT,
      slug: 'acme-petstore',
      base_urls: { test: `${petstore.url}/api/v3` },
    });
    expect(res.status).toBe(201);
    server = { id: res.body.id, slug: res.body.slug };
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^gsrv_/),
      name: 'Swagger Petstore - OpenAPI 3.0',
      slug: 'acme-petstore',
      version: '0',
      status: 'draft',
      tool_count: 19,
      published_version: null,
      source: {
        openapi: '3.0.4',
        title: 'Swagger Petstore - OpenAPI 3.0',
        document_version: '1.0.27',
        url: null,
      },
      auth: {
        auth_type: 'api_key',
        schemes: ['api_key'],
        fields: [{ name: 'api_key', kind: 'api_key', label: expect.any(String), header_name: 'api_key' }],
      },
      // The document's only server is relative (`/api/v3`): uploaded, it names no live host.
      base_urls: { live: null, test: `${petstore.url}/api/v3` },
      verify: { method: 'GET', path: '/store/inventory' },
    });
    expect(res.body.tools.map((t: { name: string }) => t.name)).toEqual([
      'update_pet',
      'add_pet',
      'find_pets_by_status',
      'find_pets_by_tags',
      'get_pet_by_id',
      'update_pet_with_form',
      'delete_pet',
      'upload_file',
      'get_inventory',
      'place_order',
      'get_order_by_id',
      'delete_order',
      'create_user',
      'create_users_with_list_input',
      'login_user',
      'logout_user',
      'get_user_by_name',
      'update_user',
      'delete_user',
    ]);
    const byName = (name: string) => res.body.tools.find((t: { name: string }) => t.name === name);
    expect(byName('get_pet_by_id')).toEqual({
      name: 'get_pet_by_id',
      operation: 'GET /pet/{petId}',
      description: 'Find pet by ID.\n\nReturns a single pet.',
      exposed: true,
      input_schema: {
        type: 'object',
        properties: {
          petId: { type: 'integer', format: 'int64', description: 'ID of pet to return' },
        },
        required: ['petId'],
        additionalProperties: false,
      },
    });
    // The body is `body`, its schema carried under $defs; the credential's own header is no argument.
    expect(byName('add_pet').input_schema).toMatchObject({
      properties: { body: { $ref: '#/$defs/Pet' } },
      required: ['body'],
      $defs: {
        Pet: { required: ['name', 'photoUrls'] },
        Category: expect.any(Object),
        Tag: expect.any(Object),
      },
    });
    expect(Object.keys(byName('delete_pet').input_schema.properties)).toEqual(['petId']);
    expect(byName('find_pets_by_tags').input_schema.properties.tags).toMatchObject({
      type: 'array',
      items: { type: 'string' },
    });
  });

  it("lists the draft among the project's servers and shows it for review", async () => {
    const list = await gw.request('GET', '/v1/generate/servers', { key: acme.key });
    expect(list.body.servers).toEqual([
      {
        id: server.id,
        name: 'Swagger Petstore - OpenAPI 3.0',
        version: '0',
        description: expect.stringContaining('sample Pet Store Server'),
        status: 'draft',
        tool_count: 19,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    ]);
    const review = await gw.request('GET', `/v1/generate/servers/${server.id}`, { key: acme.key });
    expect([review.status, review.body.tools.length]).toEqual([200, 19]);
  });

  it('fetches the document from its URL, its relative server resolved against it', async () => {
    const res = await generate(acme, {
      document_url: `${petstore.url}/api/v3/openapi.json`,
      name: 'Pets by URL',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Pets by URL',
      slug: expect.stringMatching(/^pets-by-url-[a-z0-9]{6}$/),
      source: { url: `${petstore.url}/api/v3/openapi.json` },
      base_urls: { live: `${petstore.url}/api/v3`, test: `${petstore.url}/api/v3` },
      tool_count: 19,
    });
  });

  it('is not yet a provider: the providers routes answer server_unknown for a draft', async () => {
    const res = await gw.request('GET', `/v1/providers/${server.slug}`, { key: acme.key });
    expect([res.status, res.body.error.code]).toEqual([404, 'server_unknown']);
    const verify = await gw.request('POST', `/v1/providers/${server.slug}/verify-connection`, {
      key: acme.key,
    });
    expect([verify.status, verify.body]).toEqual([
      404,
      expect.objectContaining({ ok: false, error: 'server_unknown' }),
    ]);
  });
});

describe('reviewing and editing the draft', () => {
  it('renames a tool, changes its description, and hides one', async () => {
    const renamed = await gw.request('PATCH', `/v1/generate/servers/${server.id}/tools/get_pet_by_id`, {
      key: acme.key,
      body: { name: 'fetch_pet', description: 'Read one pet by its id.' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'fetch_pet', operation: 'GET /pet/{petId}', exposed: true });
    const hidden = await gw.request('PATCH', `/v1/generate/servers/${server.id}/tools/upload_file`, {
      key: acme.key,
      body: { exposed: false },
    });
    expect([hidden.status, hidden.body.exposed]).toEqual([200, false]);
    const review = await gw.request('GET', `/v1/generate/servers/${server.id}`, { key: acme.key });
    expect(review.body.tool_count).toBe(18);
  });

  it('refuses a name another tool has, and a tool the server does not have, changing nothing', async () => {
    const taken = await gw.request('PATCH', `/v1/generate/servers/${server.id}/tools/fetch_pet`, {
      key: acme.key,
      body: { name: 'add_pet' },
    });
    expect([taken.status, taken.body.error.code]).toEqual([409, 'tool_name_taken']);
    const missing = await gw.request('PATCH', `/v1/generate/servers/${server.id}/tools/get_pet_by_id`, {
      key: acme.key,
      body: { exposed: false },
    });
    expect([missing.status, missing.body.error.code]).toEqual([404, 'tool_not_found']);
    const review = await gw.request('GET', `/v1/generate/servers/${server.id}`, { key: acme.key });
    expect(review.body.tools.filter((t: { name: string }) => t.name === 'fetch_pet')).toHaveLength(1);
  });

  it("edits the server's name and description", async () => {
    const res = await gw.request('PATCH', `/v1/generate/servers/${server.id}`, {
      key: acme.key,
      body: { name: 'Acme Petstore', description: null },
    });
    expect(res.body).toMatchObject({ name: 'Acme Petstore', description: null, status: 'draft' });
  });
});

describe('publishing', () => {
  it('makes version 1, the exposed tools, and a provider of the project', async () => {
    const res = await gw.request('POST', `/v1/generate/servers/${server.id}/publish`, { key: acme.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'published', version: '1', published_version: 1 });
    const provider = await gw.request('GET', `/v1/providers/${server.slug}`, { key: acme.key });
    expect(provider.status).toBe(200);
    expect(provider.body).toMatchObject({
      id: server.slug,
      name: 'Acme Petstore',
      auth_type: 'api_key',
      tools_count: 18,
      sandbox_available: true,
    });
    expect(provider.body.tools.map((t: { name: string }) => t.name)).not.toContain('upload_file');
    const schema = await gw.request('GET', `/v1/providers/${server.slug}/auth-schema`, { key: acme.key });
    expect(schema.body).toEqual({
      server_id: server.slug,
      auth_type: 'api_key',
      environment: 'test',
      base_url: `${petstore.url}/api/v3`,
      fields: [{ name: 'api_key', kind: 'api_key', label: expect.any(String), header_name: 'api_key' }],
      oauth_authorize_url: null,
    });
  });

  it('is refused a session until connected, then connects with the API key and verifies it', async () => {
    const early = await gw.request('POST', '/v1/sessions', {
      key: acme.key,
      body: { servers: [server.slug] },
    });
    expect([early.status, early.body.error.code]).toEqual([424, 'not_connected']);
    const connection = await gw.request('POST', `/v1/providers/${server.slug}/connections`, {
      key: acme.key,
      body: { credentials: { api_key: PETSTORE_API_KEY } },
    });
    expect(connection.status).toBe(201);
    expect(JSON.stringify(connection.body)).not.toContain(PETSTORE_API_KEY);
    const verify = await gw.request('POST', `/v1/providers/${server.slug}/verify-connection`, {
      key: acme.key,
    });
    expect([verify.status, verify.body]).toEqual([
      200,
      { ok: true, provider: server.slug, latency_ms: expect.any(Number) },
    ]);
    expect(petstore.apiKeys.at(-1)).toBe(PETSTORE_API_KEY);
  });

  it("answers 401 with the provider's words when the stored key is wrong", async () => {
    const other = await gw.createTenant();
    const draft = await generate(other, {
      document: PETSTORE_DOCUMENT,
      base_urls: { test: `${petstore.url}/api/v3` },
    });
    await gw.request('POST', `/v1/generate/servers/${draft.body.id}/publish`, { key: other.key });
    await gw.request('POST', `/v1/providers/${draft.body.slug}/connections`, {
      key: other.key,
      body: { credentials: { api_key: 'not-the-key' } },
    });
    const verify = await gw.request('POST', `/v1/providers/${draft.body.slug}/verify-connection`, {
      key: other.key,
    });
    expect([verify.status, verify.body]).toEqual([
      401,
      expect.objectContaining({ ok: false, error: 'credential_rejected', detail: 'Invalid api_key' }),
    ]);
  });
});

describe('calling the published tools', () => {
  let session: string;
  beforeAll(async () => {
    const res = await gw.request('POST', '/v1/sessions', {
      key: acme.key,
      body: { servers: ['gateway', server.slug] },
    });
    expect(res.status).toBe(201);
    session = res.body.id;
  });

  it('calls an operation over REST with the vault credential, recording the call', async () => {
    const res = await gw.request('POST', `/v1/sessions/${session}/tool-calls`, {
      key: acme.key,
      body: { tool: `${server.slug}.fetch_pet`, arguments: { petId: 1 } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      tool_name: `${server.slug}.fetch_pet`,
      server_id: server.slug,
      status: 'success',
      output: { id: 1, name: 'Rex', status: 'available' },
    });
    expect(petstore.apiKeys.at(-1)).toBe(PETSTORE_API_KEY);
  });

  it('sends the body, query arrays and path parameters as the operation describes', async () => {
    const added = await gw.request('POST', `/v1/sessions/${session}/tool-calls`, {
      key: acme.key,
      body: {
        tool: `${server.slug}.add_pet`,
        arguments: { body: { name: 'Bolt', photoUrls: [], status: 'pending' } },
      },
    });
    expect(added.body).toMatchObject({ status: 'success', output: { name: 'Bolt', id: 4 } });
    const found = await gw.request('POST', `/v1/sessions/${session}/tool-calls`, {
      key: acme.key,
      body: { tool: `${server.slug}.find_pets_by_status`, arguments: { status: 'pending' } },
    });
    expect(found.body.output).toEqual({
      result: [
        { id: 2, name: 'Tom', status: 'pending', photoUrls: [] },
        { id: 4, name: 'Bolt', status: 'pending', photoUrls: [] },
      ],
    });
  });

  it("refuses arguments outside the operation's schema, and answers the provider's 404 as provider_error", async () => {
    const invalid = await gw.request('POST', `/v1/sessions/${session}/tool-calls`, {
      key: acme.key,
      body: { tool: `${server.slug}.fetch_pet`, arguments: { petId: 'one' } },
    });
    expect([invalid.status, invalid.body.error.code]).toEqual([400, 'invalid_body']);
    const missing = await gw.request('POST', `/v1/sessions/${session}/tool-calls`, {
      key: acme.key,
      body: { tool: `${server.slug}.fetch_pet`, arguments: { petId: 99 } },
    });
    expect([missing.status, missing.body.error.code, missing.body.error.details]).toEqual([
      502,
      'provider_error',
      expect.objectContaining({ status: 404, provider_message: 'Pet not found' }),
    ]);
    const hidden = await gw.request('POST', `/v1/sessions/${session}/tool-calls`, {
      key: acme.key,
      body: { tool: `${server.slug}.upload_file`, arguments: { petId: 1 } },
    });
    expect([hidden.status, hidden.body.error.code]).toEqual([404, 'tool_not_found']);
  });

  it('lists and calls an operation through MCP with the SDK client', async () => {
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
      const { tools } = await client.listTools();
      const fetchPet = tools.find((tool) => tool.name === `${server.slug}.fetch_pet`);
      expect(fetchPet).toMatchObject({
        description: 'Read one pet by its id.',
        inputSchema: { type: 'object', required: ['petId'] },
      });
      expect(tools.filter((tool) => tool.name.startsWith(`${server.slug}.`))).toHaveLength(18);
      const result = await client.callTool({ name: `${server.slug}.fetch_pet`, arguments: { petId: 2 } });
      expect(result.isError).toBeFalsy();
      expect(parsed(result)).toEqual({ id: 2, name: 'Tom', status: 'pending', photoUrls: [] });
      const inventory = await client.callTool({ name: `${server.slug}.get_inventory`, arguments: {} });
      expect(parsed(inventory)).toEqual({ available: 1, pending: 2, sold: 1 });
    } finally {
      await client.close();
    }
  });

  it('sends a raw request with proxy_execute, the credential injected', async () => {
    const res = await gw.request('POST', `/v1/sessions/${session}/proxy_execute`, {
      key: acme.key,
      body: { server_id: server.slug, method: 'GET', path: '/pet/3' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      object: 'proxy_response',
      server_id: server.slug,
      status: 200,
      body: { id: 3, name: 'Nemo' },
    });
  });
});

describe('another project', () => {
  it("gets the spec's 404s for the generated provider", async () => {
    const provider = await gw.request('GET', `/v1/providers/${server.slug}`, { key: globex.key });
    expect([provider.status, provider.body.error.code]).toEqual([404, 'server_unknown']);
    const schema = await gw.request('GET', `/v1/providers/${server.slug}/auth-schema`, { key: globex.key });
    expect([schema.status, schema.body.error.code]).toEqual([404, 'server_unknown']);
    const verify = await gw.request('POST', `/v1/providers/${server.slug}/verify-connection`, {
      key: globex.key,
    });
    expect([verify.status, verify.body]).toEqual([404, { error: 'not_found', server_id: server.slug }]);
    const connect = await gw.request('POST', `/v1/providers/${server.slug}/connections`, {
      key: globex.key,
      body: { credentials: { api_key: PETSTORE_API_KEY } },
    });
    expect([connect.status, connect.body.error.code]).toEqual([404, 'server_unknown']);
    const session = await gw.request('POST', '/v1/sessions', {
      key: globex.key,
      body: { servers: [server.slug] },
    });
    expect([session.status, session.body.error.code]).toEqual([404, 'server_unknown']);
  });

  it('cannot read, edit or publish the server', async () => {
    for (const [method, path, body] of [
      ['GET', `/v1/generate/servers/${server.id}`, undefined],
      ['PATCH', `/v1/generate/servers/${server.id}`, { name: 'Mine now' }],
      ['PATCH', `/v1/generate/servers/${server.id}/tools/fetch_pet`, { exposed: false }],
      ['POST', `/v1/generate/servers/${server.id}/publish`, undefined],
      ['GET', `/v1/generate/servers/${server.id}/versions`, undefined],
    ] as const) {
      const res = await gw.request(method, path, { key: globex.key, ...(body ? { body } : {}) });
      expect([method, path, res.status, res.body.error.code]).toEqual([method, path, 404, 'not_found']);
    }
    const list = await gw.request('GET', '/v1/generate/servers', { key: globex.key });
    expect(list.body).toEqual({ servers: [] });
  });
});

describe('versions', () => {
  it('publishing again makes version 2, which sessions use from then on', async () => {
    await gw.request('PATCH', `/v1/generate/servers/${server.id}/tools/fetch_pet`, {
      key: acme.key,
      body: { name: 'read_pet' },
    });
    // Until published, sessions keep version 1.
    const before = await gw.request('POST', '/v1/sessions', {
      key: acme.key,
      body: { servers: [server.slug] },
    });
    const old = await gw.request('POST', `/v1/sessions/${before.body.id}/tool-calls`, {
      key: acme.key,
      body: { tool: `${server.slug}.fetch_pet`, arguments: { petId: 1 } },
    });
    expect(old.body.status).toBe('success');

    const published = await gw.request('POST', `/v1/generate/servers/${server.id}/publish`, {
      key: acme.key,
    });
    expect(published.body).toMatchObject({ version: '2', published_version: 2, status: 'published' });
    const versions = await gw.request('GET', `/v1/generate/servers/${server.id}/versions`, { key: acme.key });
    expect(versions.body.versions).toEqual([
      { version: 2, tool_count: 18, published_at: expect.any(String) },
      { version: 1, tool_count: 18, published_at: expect.any(String) },
    ]);
    const renamed = await gw.request('POST', `/v1/sessions/${before.body.id}/tool-calls`, {
      key: acme.key,
      body: { tool: `${server.slug}.read_pet`, arguments: { petId: 1 } },
    });
    expect(renamed.body).toMatchObject({ status: 'success', output: { name: 'Rex' } });
    const gone = await gw.request('POST', `/v1/sessions/${before.body.id}/tool-calls`, {
      key: acme.key,
      body: { tool: `${server.slug}.fetch_pet`, arguments: { petId: 1 } },
    });
    expect([gone.status, gone.body.error.code]).toEqual([404, 'tool_not_found']);
  });
});
