// The error contract through HTTP: request ids, the envelope, malformed input of every kind, and a
// sweep that throws junk at every route to prove no input makes the server answer 500.
import { allRoutes } from '../api/routes';
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

describe('request ids', () => {
  it('puts X-Request-Id on successes and errors alike, equal to the body request_id', async () => {
    const ok = await gw.request('GET', '/v1/whoami', { key: tenant.key });
    expect(ok.headers.get('x-request-id')).toMatch(/^req_[0-9a-z]{26}$/);
    const failed = await gw.request('GET', '/v1/projects/prj_missing', { key: tenant.key });
    expect(failed.body.request_id).toBe(failed.headers.get('x-request-id'));
  });

  it('keeps a well-formed incoming X-Request-Id and replaces a malformed one', async () => {
    const kept = await gw.request('GET', '/v1/whoami', { key: tenant.key, headers: { 'X-Request-Id': 'edge-proxy-1234abcd' } });
    expect(kept.headers.get('x-request-id')).toBe('edge-proxy-1234abcd');
    const replaced = await gw.request('GET', '/v1/whoami', { key: tenant.key, headers: { 'X-Request-Id': 'bad id<script>' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^req_/);
  });
});

describe('malformed requests', () => {
  const post = (raw: string | Buffer, contentType = 'application/json') =>
    gw.request('POST', '/v1/projects', { key: tenant.key, raw, headers: { 'Content-Type': contentType } });

  it('answers invalid_json for a body that is not JSON', async () => {
    const result = await post('{"name": "x",');
    expect(result.status).toBe(400);
    expect(result.body).toEqual({ error: { code: 'invalid_json', message: expect.any(String) }, request_id: expect.any(String) });
  });

  it('answers 415 for a body of another content type', async () => {
    const result = await post('name=x', 'text/plain');
    expect(result.status).toBe(415);
    expect(result.body.error.code).toBe('unsupported_media_type');
  });

  it('answers 413 for a body over the size limit, without reading it all', async () => {
    const result = await post(Buffer.alloc(gw.config.bodyLimitBytes + 10, 'a'));
    expect(result.status).toBe(413);
    expect(result.body.error.code).toBe('payload_too_large');
  });

  it('judges an empty body against the schema', async () => {
    const result = await gw.request('POST', '/v1/projects', { key: tenant.key });
    expect(result.status).toBe(400);
    expect(result.body.error.code).toBe('invalid_body');
    expect(result.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(expect.arrayContaining(['/name', '/slug']));
  });

  it.each(['[]', '"text"', '42', 'null'])('refuses a JSON body that is not an object: %s', async (raw) => {
    const result = await post(raw);
    expect(result.status).toBe(400);
    expect(result.body.error.code).toBe('invalid_body');
  });

  it('answers not_found in the envelope for an unknown route, authenticated or not', async () => {
    for (const key of [undefined, tenant.key]) {
      const result = await gw.request('GET', '/v1/nothing-here', { key });
      expect(result.status).toBe(404);
      expect(result.body.error.code).toBe('not_found');
    }
  });

  it('answers 405 with Allow for a known path and a wrong method', async () => {
    const result = await gw.request('PUT', '/v1/whoami', { key: tenant.key });
    expect(result.status).toBe(405);
    expect(result.body.error.code).toBe('method_not_allowed');
    expect(result.headers.get('allow')).toContain('GET');
  });
});

describe('no input answers 500', () => {
  const junkBodies: unknown[] = [
    { name: null, slug: { $ne: 1 }, settings: [], scopes: 'all' },
    { name: 'x'.repeat(10_000), slug: '../../etc', approval_ttl_seconds: 1e308 },
    { name: 'ok\u0000nul', slug: 'ok', role: 'god', email: 'x\u0000@y.z' },
    [1, 2],
  ];
  const junkPaths = ["' OR 1=1 --", '%00', '%E0%A4%A', 'prj_' + 'A'.repeat(300)];

  it('survives junk bodies, ids and queries on every route with 2xx/4xx only', async () => {
    const seen: string[] = [];
    for (const route of allRoutes()) {
      for (const id of junkPaths) {
        const path = route.path.replace(/:([A-Za-z_]+)/g, id) + '?limit=-5&offset=zz&is_default=2';
        for (const body of route.method === 'get' || route.method === 'delete' ? [undefined] : junkBodies) {
          for (const key of [tenant.key, gw.serviceToken]) {
            const headers: Record<string, string> = key === gw.serviceToken ? { 'x-service-project': tenant.projectId } : {};
            const result = await gw.request(route.method.toUpperCase(), path, { key, body, headers });
            if (result.status >= 500) seen.push(`${route.method} ${path.slice(0, 60)} ${JSON.stringify(body).slice(0, 80)} → ${result.status}`);
          }
        }
      }
    }
    expect(seen.slice(0, 10)).toEqual([]);
  });
});
