// The served OpenAPI 3.1 document: valid per an independent validator, built from the validation
// schemas, listing only key-, token- and public operations, with scopes; and the /docs reference.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { allRoutes } from '../api/routes';
import { requestSchema } from '../schema/http/json-schema';
import { startGateway, type Gateway } from './support/harness';

let gw: Gateway;
beforeAll(async () => {
  gw = await startGateway({ worker: false });
});
afterAll(async () => {
  await gw?.stop();
});

describe('GET /openapi.json', () => {
  it('serves the same document without a credential at / and /v1', async () => {
    const root = await gw.request('GET', '/openapi.json');
    const v1 = await gw.request('GET', '/v1/openapi.json');
    expect(root.status).toBe(200);
    expect(v1.status).toBe(200);
    expect(v1.body).toEqual(root.body);
    expect(root.body.openapi).toBe('3.1.0');
    expect(root.body.info.version).toBe('0.3.0');
  });

  it('passes an OpenAPI 3.1 validator', async () => {
    const document = (await gw.request('GET', '/openapi.json')).body;
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'openapi-')), 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    const output = execFileSync(
      process.execPath,
      [path.join(__dirname, 'support', 'validate-openapi.mjs'), file],
      { encoding: 'utf8' },
    );
    const result = JSON.parse(output);
    expect(result.errors).toBeNull();
    expect(result.valid).toBe(true);
    expect(result.version).toBe('3.1');
  });

  it('lists every key-reachable and public operation and no operator-only one', async () => {
    const document = (await gw.request('GET', '/openapi.json')).body;
    const listed = new Set<string>();
    for (const [p, methods] of Object.entries(document.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(methods)) listed.add(`${method} ${p}`);
    }
    for (const route of allRoutes()) {
      const key = `${route.method} ${route.path.replace(/:([A-Za-z_]+)/g, '{$1}')}`;
      const expected = route.auth !== 'operator' && !route.undocumented;
      expect([key, listed.has(key)]).toEqual([key, expected]);
    }
    expect(listed.has('post /v1/orgs')).toBe(false);
    expect(listed.has('post /v1/api-keys')).toBe(false);
    expect(listed.has('get /v1/whoami')).toBe(true);
  });

  it("declares bearer auth and each operation's scope", async () => {
    const document = (await gw.request('GET', '/openapi.json')).body;
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    const settings = document.paths['/v1/projects/{id}/settings'].get;
    expect(settings.security).toEqual([{ bearerAuth: ['projects:settings'] }]);
    expect(settings['x-required-scope']).toBe('projects:settings');
    expect(document.paths['/v1/whoami'].get.security).toEqual([{ bearerAuth: [] }]);
    expect(document.paths['/v1/projects'].get['x-scope-mapping']).toMatch(/^unmapped/);
    expect(document.paths['/openapi.json'].get.security).toEqual([]);
  });

  it('shows the very request schemas the validator uses', async () => {
    const document = (await gw.request('GET', '/openapi.json')).body;
    const create = allRoutes().find((route) => route.operationId === 'createProject');
    expect(document.paths['/v1/projects'].post.requestBody.content['application/json'].schema).toEqual(
      JSON.parse(JSON.stringify(requestSchema(create!.body!))),
    );
    const query = document.paths['/v1/projects'].get.parameters.find(
      (p: { name: string }) => p.name === 'limit',
    );
    expect(query.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 50 });
  });
});

describe('the answers each operation documents', () => {
  type Operation = { responses: Record<string, { content?: Record<string, { schema: unknown }> }> };
  const operations = async () => {
    const document = (await gw.request('GET', '/openapi.json')).body;
    const found: Array<{ name: string; path: string; method: string; op: Operation }> = [];
    for (const [p, methods] of Object.entries(document.paths as Record<string, Record<string, Operation>>)) {
      for (const [method, op] of Object.entries(methods))
        found.push({ name: `${method} ${p}`, path: p, method, op });
    }
    return found;
  };
  const declared = (name: string) =>
    allRoutes().find((r) => `${r.method} ${r.path.replace(/:([A-Za-z_]+)/g, '{$1}')}` === name);

  it('lists the refusals of the shared request path on every operation: 400, 404 with an id, 413 and 415 with a body, 431', async () => {
    const missing: string[] = [];
    for (const { name, path: p, method, op } of await operations()) {
      const route = declared(name)!;
      const expected = ['400', '431'];
      if (p.includes('{')) expected.push('404');
      if (!route.onInputError && (route.body || (method !== 'get' && method !== 'delete')))
        expected.push('413', '415');
      for (const status of expected) if (!op.responses[status]) missing.push(`${name} ${status}`);
    }
    expect(missing).toEqual([]);
  });

  it('documents the envelope for the refusals it adds', async () => {
    const listed = (await operations()).find((o) => o.name === 'post /v1/wallets')!;
    for (const status of ['400', '413', '415']) {
      expect(listed.op.responses[status].content?.['application/json'].schema).toMatchObject({
        required: ['error', 'request_id'],
      });
    }
  });

  it('bounds every request integer and number to what the API holds, as the validator does', async () => {
    const document = (await gw.request('GET', '/openapi.json')).body;
    const param = (p: string, name: string) =>
      document.paths[p].get.parameters.find((q: { name: string }) => q.name === name).schema;
    expect(param('/v1/projects', 'offset')).toMatchObject({
      type: 'integer',
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
    });
    expect(param('/v1/consumers/{consumerId}/receipts', 'before_seq')).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 2_147_483_647,
    });
    const execute =
      document.paths['/v1/wallets/{id}/execute'].post.requestBody.content['application/json'].schema
        .properties.amount;
    expect(execute).toMatchObject({ type: 'number', exclusiveMinimum: 0, maximum: Number.MAX_SAFE_INTEGER });
    const unbounded: string[] = [];
    const walk = (schema: unknown, at: string) => {
      if (!schema || typeof schema !== 'object') return;
      const s = schema as Record<string, unknown>;
      const numeric = s.type === 'integer' || s.type === 'number';
      if (numeric && s.maximum === undefined && s.exclusiveMaximum === undefined) unbounded.push(at);
      // Examples are instances, not schemas (a generated server's example document holds its own).
      for (const [key, inner] of Object.entries(s))
        if (key !== 'examples' && key !== 'example') walk(inner, `${at}/${key}`);
    };
    for (const { name, op } of await operations()) {
      const full = op as unknown as { parameters?: unknown[]; requestBody?: unknown };
      walk(full.parameters, `${name} parameters`);
      walk(full.requestBody, `${name} body`);
    }
    expect(unbounded).toEqual([]);
  });

  it('refuses a zero ledger amount by the documented pattern, as the handler does', async () => {
    const document = (await gw.request('GET', '/openapi.json')).body;
    const amount =
      document.paths['/v1/ledger-entries'].post.requestBody.content['application/json'].schema.properties
        .amount_minor;
    const pattern = new RegExp(amount.pattern);
    expect(['0', '000', '-1', '1.5', '12345678901234567890'].filter((a) => pattern.test(a))).toEqual([]);
    expect(['1', '0042', '9223372036854775807'].every((a) => pattern.test(a))).toBe(true);
  });
});

describe('the rules the server enforces, stated in the document', () => {
  const document = async () => (await gw.request('GET', '/openapi.json')).body;
  type Parameter = { name: string; in: string; required: boolean; schema: Record<string, unknown> };
  const parameter = (op: { parameters: Parameter[] }, name: string) =>
    op.parameters.find((p) => p.name === name)!;

  it("gives each path parameter the route's own rule, and free text one refusing NUL", async () => {
    const doc = await document();
    const call = doc.paths['/v1/sessions/{id}/tool-calls/{callId}'].get;
    expect(parameter(call, 'id').schema.pattern).toBe('^ses_[0-9a-z]{26}$');
    expect(parameter(call, 'callId').schema.pattern).toBe('^tc_[1-9][0-9]{0,18}$');
    const wallet = parameter(doc.paths['/v1/wallets/{id}'].get, 'id').schema;
    expect(wallet).toMatchObject({ type: 'string' });
    const nul = new RegExp(wallet.pattern as string, 'u');
    expect([nul.test('wal_1'), nul.test('wal\u00001')]).toEqual([true, false]);
  });

  it('states that text holds no NUL, in bodies, queries and the keys of open objects', async () => {
    const doc = await document();
    const body = doc.paths['/v1/consumers'].post.requestBody.content['application/json'].schema;
    expect(body.properties.display_name.pattern).toBeDefined();
    expect(new RegExp(body.properties.display_name.pattern, 'u').test('a\u0000b')).toBe(false);
    const keyRules = body.properties.metadata.propertyNames.allOf as Array<{ pattern?: string }>;
    const keyPattern = keyRules.find((rule) => rule.pattern)!.pattern!;
    expect(new RegExp(keyPattern, 'u').test('k\u0000')).toBe(false);
  });

  it('marks a body required unless the route takes none at all', async () => {
    const doc = await document();
    expect(doc.paths['/v1/consumers'].post.requestBody.required).toBe(true);
  });

  it('documents the MCP session header the transport requires on GET and DELETE', async () => {
    const doc = await document();
    for (const method of ['get', 'delete']) {
      const header = parameter(doc.paths['/mcp'][method], 'Mcp-Session-Id');
      expect([method, header.in, header.required]).toEqual([method, 'header', true]);
    }
    expect(parameter(doc.paths['/mcp'].post, 'Mcp-Session-Id')).toBeUndefined();
  });
});

describe('GET /docs', () => {
  it('serves an interactive reference built on the document and its assets', async () => {
    const page = await gw.request('GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.text).toContain('data-spec-url="/openapi.json"');
    for (const asset of [
      '/docs/assets/swagger-ui-bundle.js',
      '/docs/assets/swagger-ui.css',
      '/docs/init.js',
    ]) {
      const result = await gw.request('GET', asset);
      expect([asset, result.status]).toEqual([asset, 200]);
      expect(result.text.length).toBeGreaterThan(50);
    }
    expect((await gw.request('GET', '/docs/assets/..%2Fpackage.json')).status).toBe(404);
  });
});
