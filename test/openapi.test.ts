// The served OpenAPI 3.1 document: valid per an independent validator, built from the validation
// schemas, listing only key-, token- and public operations, with scopes; and the /docs reference.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { allRoutes } from '../api/routes';
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
    const output = execFileSync(process.execPath, [path.join(__dirname, 'support', 'validate-openapi.mjs'), file], { encoding: 'utf8' });
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

  it('declares bearer auth and each operation\'s scope', async () => {
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
    expect(document.paths['/v1/projects'].post.requestBody.content['application/json'].schema).toEqual(JSON.parse(JSON.stringify(create?.body)));
    const query = document.paths['/v1/projects'].get.parameters.find((p: { name: string }) => p.name === 'limit');
    expect(query.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 50 });
  });
});

describe('GET /docs', () => {
  it('serves an interactive reference built on the document and its assets', async () => {
    const page = await gw.request('GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.text).toContain('data-spec-url="/openapi.json"');
    for (const asset of ['/docs/assets/swagger-ui-bundle.js', '/docs/assets/swagger-ui.css', '/docs/init.js']) {
      const result = await gw.request('GET', asset);
      expect([asset, result.status]).toEqual([asset, 200]);
      expect(result.text.length).toBeGreaterThan(50);
    }
    expect((await gw.request('GET', '/docs/assets/..%2Fpackage.json')).status).toBe(404);
  });
});
