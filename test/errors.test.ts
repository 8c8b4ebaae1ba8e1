// The error contract through HTTP: request ids, the envelope, malformed input of every kind (huge
// integers, unpaired surrogates, deep nesting), the 500 envelope, and a sweep that throws junk at every
// route to prove no input makes the server answer 500.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createApp } from '../api/app';
import { route } from '../api/route';
import { allRoutes } from '../api/routes';
import type { Logger } from '../runtime/logger';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { gatewayClient } from './support/client';
import { newWallet } from './support/money';

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
    const kept = await gw.request('GET', '/v1/whoami', {
      key: tenant.key,
      headers: { 'X-Request-Id': 'edge-proxy-1234abcd' },
    });
    expect(kept.headers.get('x-request-id')).toBe('edge-proxy-1234abcd');
    const replaced = await gw.request('GET', '/v1/whoami', {
      key: tenant.key,
      headers: { 'X-Request-Id': 'bad id<script>' },
    });
    expect(replaced.headers.get('x-request-id')).toMatch(/^req_/);
  });
});

describe('malformed requests', () => {
  const post = (raw: string | Buffer, contentType = 'application/json') =>
    gw.request('POST', '/v1/projects', { key: tenant.key, raw, headers: { 'Content-Type': contentType } });

  it('answers invalid_json for a body that is not JSON', async () => {
    const result = await post('{"name": "x",');
    expect(result.status).toBe(400);
    expect(result.body).toEqual({
      error: { code: 'invalid_json', message: expect.any(String) },
      request_id: expect.any(String),
    });
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
    expect(result.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(
      expect.arrayContaining(['/name', '/slug']),
    );
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

  it('answers 405 for a concrete path that a templated one would also match, naming only its own methods', async () => {
    for (const method of ['GET', 'PATCH', 'DELETE', 'OPTIONS']) {
      const result = await gw.request(method, '/v1/policies/reorder', { key: tenant.key });
      expect([method, result.status, result.headers.get('allow'), result.body.error.details.allowed]).toEqual(
        [method, 405, 'POST', ['POST']],
      );
    }
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
    const requests: Array<() => Promise<void>> = [];
    for (const route of allRoutes()) {
      for (const id of junkPaths) {
        const path = route.path.replace(/:([A-Za-z_]+)/g, id) + '?limit=-5&offset=zz&is_default=2';
        for (const body of route.method === 'get' || route.method === 'delete' ? [undefined] : junkBodies) {
          for (const key of [tenant.key, gw.serviceToken]) {
            const headers: Record<string, string> =
              key === gw.serviceToken ? { 'x-service-project': tenant.projectId } : {};
            requests.push(async () => {
              const result = await gw.request(route.method.toUpperCase(), path, { key, body, headers });
              if (result.status >= 500)
                seen.push(
                  `${route.method} ${path.slice(0, 60)} ${String(JSON.stringify(body)).slice(0, 80)} → ${result.status}`,
                );
            });
          }
        }
      }
    }
    // A few lanes at once: thousands of requests, none of which depends on another.
    const lanes = Array.from({ length: 8 }, async () => {
      for (let next = requests.shift(); next; next = requests.shift()) await next();
    });
    await Promise.all(lanes);
    expect(seen.slice(0, 10)).toEqual([]);
  }, 240_000);
});

describe('integers beyond what the API can hold', () => {
  it('refuses a huge offset or limit on GET /v1/projects as invalid_query', async () => {
    for (const query of [
      'offset=9223372036854775809',
      'offset=1977421630267313772036096',
      'offset=1e30',
      'limit=1e30',
      'limit=99999999999999999999',
    ]) {
      const result = await gw.request('GET', `/v1/projects?${query}`, { key: tenant.key });
      expect([query, result.status, result.body.error?.code]).toEqual([query, 400, 'invalid_query']);
    }
  });

  it('still pages with the largest offset it accepts', async () => {
    const result = await gw.request('GET', `/v1/projects?offset=${Number.MAX_SAFE_INTEGER}`, {
      key: tenant.key,
    });
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ projects: [], offset: Number.MAX_SAFE_INTEGER, total: 1 });
  });

  it('refuses a receipt cursor past the chain sequence range and accepts the largest one', async () => {
    const consumer = await gw.request('POST', '/v1/consumers', {
      key: tenant.key,
      body: { display_name: 'Ana' },
    });
    expect(consumer.status).toBe(201);
    for (const cursor of ['5646163764', '6.916286222772e+32']) {
      const result = await gw.request(
        'GET',
        `/v1/consumers/${consumer.body.id}/receipts?before_seq=${cursor}`,
        { key: tenant.key },
      );
      expect([cursor, result.status, result.body.error?.code]).toEqual([cursor, 400, 'invalid_query']);
    }
    const largest = await gw.request(
      'GET',
      `/v1/consumers/${consumer.body.id}/receipts?before_seq=2147483647`,
      { key: tenant.key },
    );
    expect(largest.status).toBe(200);
    expect(largest.body).toEqual({ receipts: [], next_before_seq: null });
  });

  it('refuses a JSON integer past 2^53 in a body at validation instead of acting on a rounded value', async () => {
    const spend = (price: string) =>
      gw.request('POST', '/v1/consumers/mandates/mdt_missing/spend', {
        key: tenant.key,
        headers: { 'Content-Type': 'application/json' },
        raw: `{"signature":"${'a'.repeat(64)}","agent_id":"agent","amount_minor":100,"payee":"ana@example.com","purpose":"books","quote":{"price_minor":${price}}}`,
      });
    const huge = await spend('18014398509481985');
    expect(huge.status).toBe(400);
    expect(huge.body.error.details.issues).toEqual([
      expect.objectContaining({ path: '/quote/price_minor', keyword: 'maximum' }),
    ]);
    // The same body with a representable price passes validation and reaches the mandate lookup.
    expect((await spend('100')).status).toBe(404);
  });
});

describe('numbers beyond what the API can hold', () => {
  it('refuses an amount past 2^53 on wallet execute as invalid_body and starts no attempt', async () => {
    const wallet = await newWallet(gw, tenant);
    for (const amount of ['1e300', '4.419842904149097e+307', '9007199254740993']) {
      const result = await gw.request('POST', `/v1/wallets/${wallet}/execute`, {
        key: tenant.key,
        headers: { 'Content-Type': 'application/json' },
        raw: `{"amount": ${amount}, "currency": "BRL", "recipient": "merchant-42", "description": "Office supplies", "mandate_id": "mdt_test", "attempt_id": "huge-${amount}"}`,
      });
      expect([amount, result.status, result.body.error?.code]).toEqual([amount, 400, 'invalid_body']);
      expect(result.body.error.details.issues).toEqual([
        expect.objectContaining({ path: '/amount', keyword: 'maximum' }),
      ]);
    }
    const entries = await gw.request('GET', `/v1/wallets/${wallet}/ledger-entries`, { key: tenant.key });
    expect(entries.body.entries).toEqual([]);
  });
});

describe('defaults', () => {
  it('refuses a budget or rate-limit rule without its config, naming the config, and evaluation never fails', async () => {
    const before = (await gw.request('GET', '/v1/policies', { key: tenant.key })).body;
    for (const type of ['budget', 'rate-limit']) {
      const result = await gw.request('POST', '/v1/policies', {
        key: tenant.key,
        body: { name: `no ${type} config`, type },
      });
      expect([type, result.status, result.body.error?.code]).toEqual([type, 400, 'invalid_body']);
      expect(result.body.error.details.issues).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ path: expect.stringMatching(/^\/config(\/|$)/), keyword: 'required' }),
        ]),
      );
    }
    expect((await gw.request('GET', '/v1/policies', { key: tenant.key })).body).toEqual(before);
    const evaluation = await gw.request('POST', '/v1/policies/evaluations', {
      key: tenant.key,
      body: { agent_id: 'agent', tool_name: 'wallet.execute', amount_minor: '100', currency: 'BRL' },
    });
    expect(evaluation.status).toBeLessThan(500);
  });

  it('still fills a default that its conditional accepts', async () => {
    const result = await gw.request('POST', '/v1/policies', {
      key: tenant.key,
      body: { name: 'plain allow', type: 'allow' },
    });
    expect(result.status).toBe(201);
    expect(result.body).toMatchObject({ config: {}, agents: [], tools: [], enabled: true });
    expect(
      (await gw.request('DELETE', `/v1/policies/${result.body.id}`, { key: tenant.key })).status,
    ).toBeLessThan(300);
  });
});

describe('text PostgreSQL cannot store', () => {
  const wallets = async () => (await gw.request('GET', '/v1/wallets', { key: tenant.key })).body;

  it('refuses an unpaired surrogate in a body value or key with 400 and writes nothing', async () => {
    const before = await wallets();
    for (const metadata of [
      { note: 'half \ud800 pair' },
      { ['key\udc00']: 'x' },
      { deep: [{ list: ['ok', 'tail \udbff'] }] },
    ]) {
      const result = await gw.request('POST', '/v1/wallets', {
        key: tenant.key,
        body: { display_name: 'Ops', currency: 'BRL', metadata },
      });
      expect([JSON.stringify(metadata), result.status, result.body.error?.code]).toEqual([
        JSON.stringify(metadata),
        400,
        'invalid_body',
      ]);
      expect(result.body.error.details.issues[0].message).toMatch(/unpaired UTF-16 surrogate/);
    }
    expect(await wallets()).toEqual(before);
  });

  it('refuses an unpaired surrogate in a ledger post and moves no money', async () => {
    const wallet = await newWallet(gw, tenant);
    for (const extra of [
      { metadata: { memo: '\ud83d' } },
      { external_ref: 'ref-\ude00' },
      { attempt_id: '\ud800\ud800' },
    ]) {
      const result = await gw.request('POST', '/v1/ledger-entries', {
        key: tenant.key,
        body: {
          wallet_id: wallet,
          org_id: tenant.orgId,
          currency: 'BRL',
          amount_minor: '100',
          kind: 'fund',
          ...extra,
        },
      });
      expect([JSON.stringify(extra), result.status, result.body.error?.code]).toEqual([
        JSON.stringify(extra),
        400,
        'invalid_body',
      ]);
    }
    const entries = await gw.request('GET', `/v1/wallets/${wallet}/ledger-entries`, { key: tenant.key });
    expect(entries.body.entries).toEqual([]);
  });

  it('accepts a whole surrogate pair (an emoji) where text is free-form', async () => {
    const result = await gw.request('POST', '/v1/wallets', {
      key: tenant.key,
      body: { display_name: 'Ops \ud83d\ude00', currency: 'BRL', metadata: { mood: '\ud83d\ude00' } },
    });
    expect(result.status).toBe(201);
    expect(result.body.display_name).toBe('Ops \ud83d\ude00');
  });

  it('refuses NUL in a key or string at any depth of a free-form value with 400 and changes nothing', async () => {
    const consumer = await gw.request('POST', '/v1/consumers', {
      key: tenant.key,
      body: { display_name: 'Nul check', metadata: { kept: 'yes' } },
    });
    expect(consumer.status).toBe(201);
    const before = await wallets();
    for (const metadata of [
      { deep: { deeper: { ['k\u0000ey']: 1 } } },
      { list: [{ ok: true }, { ['\u0000']: null }] },
      { note: { text: 'tail \u0000' } },
    ]) {
      const created = await gw.request('POST', '/v1/wallets', {
        key: tenant.key,
        body: { display_name: 'Ops', currency: 'BRL', metadata },
      });
      const patched = await gw.request('PATCH', `/v1/consumers/${consumer.body.id}`, {
        key: tenant.key,
        body: { display_name: 'Renamed', metadata },
      });
      for (const result of [created, patched]) {
        expect([JSON.stringify(metadata), result.status, result.body.error?.code]).toEqual([
          JSON.stringify(metadata),
          400,
          'invalid_body',
        ]);
        expect(result.body.error.details.issues[0].message).toMatch(/NUL character/);
      }
    }
    expect(await wallets()).toEqual(before);
    const after = await gw.request('GET', `/v1/consumers/${consumer.body.id}`, { key: tenant.key });
    expect([after.body.display_name, after.body.metadata]).toEqual(['Nul check', { kept: 'yes' }]);
  });

  it('refuses NUL in a query string and never turns undecodable percent-escapes into a 500', async () => {
    const nul = await gw.request('GET', '/v1/projects?is_default=%00', { key: tenant.key });
    expect(nul.status).toBe(400);
    expect(nul.body.error.code).toBe('invalid_query');
    const broken = await gw.request('GET', '/v1/wallets?agent_id=%ED%A0%80&status=%ED%A0%80', {
      key: tenant.key,
    });
    expect(broken.status).toBeLessThan(500);
  });
});

describe('key names that reach a prototype', () => {
  const settingsOf = async () =>
    (await gw.request('GET', `/v1/projects/${tenant.projectId}/settings`, { key: tenant.key })).body;
  const historyOf = async () =>
    (await gw.request('GET', `/v1/projects/${tenant.projectId}/settings/history`, { key: tenant.key })).body;
  const wallets = async () => (await gw.request('GET', '/v1/wallets', { key: tenant.key })).body;
  // Raw text: JSON.parse makes each of these an own key, as it does for a client's request.
  const send = (method: string, path: string, raw: string) =>
    gw.request(method, path, { key: tenant.key, raw, headers: { 'Content-Type': 'application/json' } });

  it.each([
    ['{"__proto__": {"approval_ttl_seconds": 60}}', '/__proto__'],
    ['{"constructor": 120}', '/constructor'],
    ['{"prototype": null}', '/prototype'],
    ['{"approval_ttl_seconds": 120, "constructor": {"name": "x"}}', '/constructor'],
  ])(
    'refuses the settings PATCH %s with 400 invalid_body naming %s and changes no setting',
    async (raw, at) => {
      const before = [await settingsOf(), await historyOf()];
      const result = await send('PATCH', `/v1/projects/${tenant.projectId}/settings`, raw);
      expect([result.status, result.body.error?.code]).toEqual([400, 'invalid_body']);
      expect(result.body.error.details.issues).toEqual([
        { path: at, message: 'is a reserved key name', keyword: 'propertyNames' },
      ]);
      expect([await settingsOf(), await historyOf()]).toEqual(before);
    },
  );

  it('refuses a reserved key at any depth of a wallet body and creates no wallet', async () => {
    const before = await wallets();
    for (const [metadata, at] of [
      ['{"__proto__": {"polluted": true}}', '/metadata/__proto__'],
      ['{"tags": [{"a": {"prototype": 1}}]}', '/metadata/tags/0/a/prototype'],
    ]) {
      const result = await send(
        'POST',
        '/v1/wallets',
        `{"display_name": "Ops", "currency": "BRL", "metadata": ${metadata}}`,
      );
      expect([
        metadata,
        result.status,
        result.body.error?.code,
        result.body.error?.details.issues[0].path,
      ]).toEqual([metadata, 400, 'invalid_body', at]);
    }
    expect(await wallets()).toEqual(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses a reserved query key with 400 invalid_query, on a read and on a write that then writes nothing', async () => {
    const listed = await gw.request('GET', '/v1/projects?__proto__=1&limit=5', { key: tenant.key });
    expect([listed.status, listed.body.error?.code, listed.body.error?.details.issues]).toEqual([
      400,
      'invalid_query',
      [{ path: '/__proto__', message: 'is a reserved key name', keyword: 'propertyNames' }],
    ]);
    const before = [await settingsOf(), await historyOf()];
    const patched = await gw.request('PATCH', `/v1/projects/${tenant.projectId}/settings?constructor=x`, {
      key: tenant.key,
      body: { approval_ttl_seconds: 300 },
    });
    expect([patched.status, patched.body.error?.code]).toEqual([400, 'invalid_query']);
    expect([await settingsOf(), await historyOf()]).toEqual(before);
  });

  it('refuses a reserved key in the body or the query of every operation with 400 before its handler', async () => {
    const seen: string[] = [];
    for (const r of allRoutes()) {
      const path = r.path.replace(/:([A-Za-z_]+)/g, 'x');
      const auth: { key: string; headers: Record<string, string> } =
        r.auth === 'operator'
          ? { key: gw.serviceToken, headers: { 'x-service-project': tenant.projectId } }
          : { key: tenant.key, headers: {} };
      const form = r.bodyTypes?.includes('json') === false;
      const attempts: Array<{ path: string; raw?: string }> = [{ path: `${path}?constructor=1` }];
      if (r.body) {
        const raw = form ? '__proto__=1&constructor=1' : '{"__proto__": {"x": 1}, "constructor": 1}';
        attempts.push({ path, raw });
      }
      for (const attempt of attempts) {
        const result = await gw.request(r.method.toUpperCase(), attempt.path, {
          key: auth.key,
          ...(attempt.raw !== undefined ? { raw: attempt.raw } : {}),
          headers: {
            ...auth.headers,
            'Content-Type': form ? 'application/x-www-form-urlencoded' : 'application/json',
          },
        });
        // Routes speaking another protocol render the refusal their own way (OAuth's 400, a page, a
        // webhook's 200 receipt saying it was not processed).
        const refused = r.onInputError ? result.status < 500 : result.status === 400;
        if (!refused) seen.push(`${r.method} ${attempt.path} → ${result.status} ${result.text.slice(0, 80)}`);
      }
    }
    expect(seen).toEqual([]);
  }, 120_000);
});

describe('deeply nested JSON', () => {
  const deepArray = '['.repeat(10_000) + ']'.repeat(10_000);
  const deepObject = (depth: number) =>
    '{"metadata":' + '{"a":'.repeat(depth) + '1' + '}'.repeat(depth) + '}';

  it('refuses JSON nested 10,000 deep on every operation that reads a body, before validation, with 400', async () => {
    const seen: string[] = [];
    for (const r of allRoutes()) {
      if (r.method === 'get' || r.method === 'delete' || r.auth === 'operator') continue;
      const path = r.path.replace(/:([A-Za-z_]+)/g, 'x');
      const result = await gw.request(r.method.toUpperCase(), path, {
        key: tenant.key,
        raw: deepArray,
        headers: { 'Content-Type': 'application/json' },
      });
      // Routes speaking another protocol render the refusal their own way (OAuth's 400, a webhook's receipt).
      const refused = r.onInputError ? result.status < 500 : result.status === 400;
      if (!refused) seen.push(`${r.method} ${r.path} → ${result.status} ${result.text.slice(0, 80)}`);
    }
    expect(seen).toEqual([]);
  });

  const consumers = async () => (await gw.request('GET', '/v1/consumers', { key: tenant.key })).body;

  it('names the limit in the envelope and writes nothing for a deep object inside an accepted field', async () => {
    const before = await consumers();
    const result = await gw.request('POST', '/v1/consumers', {
      key: tenant.key,
      raw: deepObject(10_000),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(result.status).toBe(400);
    expect(result.body).toEqual({
      error: {
        code: 'invalid_body',
        message: expect.stringContaining('nests deeper than 64 levels'),
        details: expect.objectContaining({ max_depth: 64 }),
      },
      request_id: result.headers.get('x-request-id'),
    });
    expect(await consumers()).toEqual(before);
  });

  it('still takes nesting within the limit', async () => {
    const result = await gw.request('POST', '/v1/consumers', {
      key: tenant.key,
      raw: deepObject(60),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(result.status).toBe(201);
  });
});

describe('an unexpected error', () => {
  const logged: Array<{ message: string; fields?: Record<string, unknown> }> = [];
  const capture = (message: string, fields?: Record<string, unknown>) => {
    logged.push({ message, fields });
  };
  const log: Logger = { debug: capture, info: capture, warn: capture, error: capture };
  let server: Server;
  let url: string;

  beforeAll(async () => {
    // A route whose handler fails the way a bug does: a plain Error carrying a secret in its message.
    const failing = route<unknown, unknown, Record<string, string>, 'key'>({
      method: 'get',
      path: '/v1/failing',
      auth: 'key',
      scope: null,
      operationId: 'failing',
      summary: 'fails',
      tags: [],
      responses: { 200: { description: 'never' } },
      handler() {
        throw new Error('connection to postgres://admin:hunter2@db failed');
      },
    });
    const app = createApp({ ...gw.deps, log }, [failing]);
    server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('answers 500 internal_error in the envelope with the request id, never the stack or the secret, and logs it with the id', async () => {
    const result = await gatewayClient(url, gw.serviceToken).request('GET', '/v1/failing', {
      key: tenant.key,
    });
    expect(result.status).toBe(500);
    const requestId = result.headers.get('x-request-id');
    expect(result.body).toEqual({
      error: { code: 'internal_error', message: expect.any(String) },
      request_id: requestId,
    });
    expect(result.text).not.toMatch(/hunter2|postgres|Error:|at /);
    const entry = logged.find((e) => e.message === 'unhandled error');
    expect(entry?.fields).toMatchObject({ request_id: requestId, method: 'GET', route: '/v1/failing' });
    expect(entry?.fields).not.toHaveProperty('path');
  });
});
