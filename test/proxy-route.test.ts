// proxy_execute through HTTP: a raw request to one of an open session's connected providers with the
// stored credential injected (checked by the mock providers themselves), a provider's refusal passed
// through, the SSRF and path refusals, the size and time limits, scope and tenant refusals, and no
// stored secret in any answer the gateway gives.
import { catalogServer } from '../domain/providers/catalog';
import { API_KEY_SANDBOX } from '../providers/mocks/auth-api-key';
import { HMAC_SANDBOX } from '../providers/mocks/auth-hmac';
import type { AuthMock } from '../providers/mocks/auth-mock';
import { PATH_SECRET_SANDBOX } from '../providers/mocks/auth-path-secret';
import { startGateway, type Gateway, type HttpResult, type Tenant } from './support/harness';

let gw: Gateway;
let t: Tenant;
const mock = (name: string) => gw.mocks[name] as unknown as AuthMock;
const SECRETS = [
  API_KEY_SANDBOX.api_key,
  HMAC_SANDBOX.secret,
  PATH_SECRET_SANDBOX.token,
  'pk_sandbox_pixpsp_wrong_0009',
];
const answers: string[] = [];

async function connect(tenant: Tenant, slug: string, credentials: Record<string, string>): Promise<string> {
  const r = await gw.request('POST', `/v1/providers/${slug}/connections`, {
    key: tenant.key,
    body: { credentials },
  });
  if (r.status !== 201) throw new Error(r.text);
  return r.body.id as string;
}
async function openSession(tenant: Tenant, servers: string[]): Promise<string> {
  const r = await gw.request('POST', '/v1/sessions', { key: tenant.key, body: { servers } });
  if (r.status !== 201) throw new Error(r.text);
  return r.body.id as string;
}
async function proxy(session: string, body: Record<string, unknown>, key = t.key): Promise<HttpResult> {
  const r = await gw.request('POST', `/v1/sessions/${session}/proxy_execute`, { key, body });
  answers.push(r.text, JSON.stringify([...r.headers.entries()]));
  return r;
}
const seen = (name: string) => mock(name).counts.accepted + mock(name).counts.refused;

let session: string;
beforeAll(async () => {
  gw = await startGateway({ worker: false });
  t = await gw.createTenant();
  await connect(t, 'pix-psp', API_KEY_SANDBOX);
  await connect(t, 'nfe-issuer', HMAC_SANDBOX);
  await connect(t, 'sms-otp', PATH_SECRET_SANDBOX);
  session = await openSession(t, ['gateway', 'pix-psp', 'nfe-issuer', 'sms-otp', 'postal-codes']);
});
afterAll(async () => {
  // Every answer of this file, refusals included, carries no stored credential value.
  const all = answers.join('\n');
  for (const secret of SECRETS) expect(all).not.toContain(secret);
  await gw?.stop();
});

describe('proxying a raw request with the stored credential injected', () => {
  it('sends method, path, query, headers and body to an api_key provider and hands back its status, headers and body', async () => {
    const accepted = mock('auth_api_key').counts.accepted;
    const r = await proxy(session, {
      server_id: 'pix-psp',
      method: 'POST',
      path: '/charges?mode=qr',
      query: { tag: ['a', 'b'] },
      headers: {
        'x-trace': 'agent-1',
        'X-Api-Key': 'pk_forged_by_the_agent_0000',
        Authorization: 'Bearer agent',
      },
      body: { amount_minor: '990' },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      object: 'proxy_response',
      server_id: 'pix-psp',
      status: 200,
      headers: { 'content-type': 'application/json' },
      body_encoding: 'json',
      body: {
        method: 'POST',
        path: '/charges?mode=qr&tag=a&tag=b',
        received_bytes: Buffer.byteLength('{"amount_minor":"990"}'),
      },
      latency_ms: expect.any(Number),
    });
    // The mock accepted the injected key: the agent's forged one was dropped.
    expect(mock('auth_api_key').counts.accepted).toBe(accepted + 1);
  });

  it("signs an hmac_signed request over its method, path, query and body, and fills a path_secret provider's path", async () => {
    const hmac = await proxy(session, {
      server_id: 'nfe-issuer',
      method: 'PUT',
      path: '/invoices/77',
      query: { draft: 'true' },
      body_base64: Buffer.from([0, 1, 2, 255]).toString('base64'),
    });
    expect(hmac.body).toMatchObject({
      status: 200,
      body_encoding: 'json',
      body: { method: 'PUT', path: '/invoices/77?draft=true', received_bytes: 4 },
    });
    const accepted = mock('auth_path_secret').counts.accepted;
    const sms = await proxy(session, {
      server_id: 'sms-otp',
      method: 'POST',
      path: '/messages',
      body: { to: '+5511999990000' },
    });
    // The mock strips the account and token it checked from the path it echoes.
    expect(sms.body).toMatchObject({ status: 200, body: { method: 'POST', path: '/messages' } });
    expect(mock('auth_path_secret').counts.accepted).toBe(accepted + 1);
  });

  it('reaches a provider that takes no credential, sending none', async () => {
    const r = await proxy(session, {
      server_id: 'postal-codes',
      method: 'GET',
      path: '/lookup',
      query: { cep: '01001000' },
    });
    expect(r.body).toMatchObject({
      status: 200,
      body: { method: 'GET', path: '/lookup?cep=01001000', received_bytes: 0 },
    });
  });

  it("passes a provider's refusal through in the answer, with its own words and headers", async () => {
    const other = await gw.createTenant();
    await connect(other, 'pix-psp', { api_key: 'pk_sandbox_pixpsp_wrong_0009' });
    const otherSession = await openSession(other, ['pix-psp']);
    const refused = mock('auth_api_key').counts.refused;
    const r = await proxy(otherSession, { server_id: 'pix-psp', method: 'GET', path: '/account' }, other.key);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: 401,
      body: { error: 'invalid_credentials', message: 'The API key provided is not valid' },
    });
    expect(mock('auth_api_key').counts.refused).toBe(refused + 1);

    mock('auth_api_key').script({
      status: 429,
      body: { error: 'slow_down' },
      headers: { 'retry-after': '7', 'set-cookie': 'sid=1' },
    });
    const limited = await proxy(session, { server_id: 'pix-psp', method: 'GET', path: '/charges' });
    expect(limited.body).toMatchObject({
      status: 429,
      headers: { 'retry-after': '7', 'content-type': 'application/json' },
      body: { error: 'slow_down' },
    });
    expect(limited.body.headers['set-cookie']).toBeUndefined();
  });

  it('redacts the stored credential when the provider echoes it', async () => {
    mock('auth_api_key').script({
      status: 200,
      body: { echoed: API_KEY_SANDBOX.api_key },
      headers: { location: `/k/${API_KEY_SANDBOX.api_key}` },
    });
    const r = await proxy(session, { server_id: 'pix-psp', method: 'GET', path: '/whoami' });
    expect(r.body).toMatchObject({
      status: 200,
      body: { echoed: '[redacted]' },
      headers: { location: '/k/[redacted]' },
    });
  });
});

describe('what proxy_execute refuses, sending nothing', () => {
  it.each([['http://evil.example/x'], ['//evil.example/x'], ['/\\evil.example']])(
    'refuses the path %s',
    async (path) => {
      const before = seen('auth_api_key');
      const r = await proxy(session, { server_id: 'pix-psp', method: 'GET', path });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toMatch(/^(proxy_path_invalid|invalid_body)$/);
      expect(seen('auth_api_key')).toBe(before);
    },
  );

  it('refuses loopback, private and metadata addresses in live mode, on every resolved address', async () => {
    const live = await gw.createTenant({ environment: 'live' });
    const liveSession = await openSession(live, ['postal-codes']);
    const server = catalogServer('postal-codes')!;
    const saved = server.endpoints.live;
    const port = new URL(mock('auth_none').url).port;
    const before = seen('auth_none');
    try {
      for (const endpoint of [
        `http://127.0.0.1:${port}`,
        `http://localhost:${port}`,
        `http://[::1]:${port}`,
        'http://10.0.0.7',
        'http://169.254.169.254/latest',
        'http://[::ffff:192.168.1.1]',
      ]) {
        server.endpoints.live = endpoint;
        const r = await proxy(
          liveSession,
          { server_id: 'postal-codes', method: 'GET', path: '/lookup' },
          live.key,
        );
        expect([endpoint, r.status, r.body.error?.code]).toEqual([
          endpoint,
          403,
          'proxy_destination_forbidden',
        ]);
      }
    } finally {
      server.endpoints.live = saved;
    }
    expect(seen('auth_none')).toBe(before);
  });

  it('refuses a body over the size limit', async () => {
    const before = seen('auth_api_key');
    const r = await proxy(session, {
      server_id: 'pix-psp',
      method: 'POST',
      path: '/blob',
      body: 'x'.repeat(1024 * 1024 + 1),
    });
    expect(r.status).toBe(413);
    expect(seen('auth_api_key')).toBe(before);
  });

  it('answers a provider slower than timeout_ms, and an answer over the size limit, as 502 provider_error', async () => {
    mock('auth_api_key').script({ status: 200, body: { late: true }, delayMs: 3_000 });
    const slow = await proxy(session, {
      server_id: 'pix-psp',
      method: 'GET',
      path: '/slow',
      timeout_ms: 200,
    });
    expect(slow.status).toBe(502);
    expect(slow.body.error).toMatchObject({
      code: 'provider_error',
      details: { server_id: 'pix-psp', reason: 'timeout' },
    });
    mock('auth_api_key').script({ status: 200, body: { blob: 'x'.repeat(6 * 1024 * 1024) } });
    const big = await proxy(session, { server_id: 'pix-psp', method: 'GET', path: '/big' });
    expect(big.status).toBe(502);
    expect(big.body.error).toMatchObject({
      code: 'provider_error',
      details: { server_id: 'pix-psp', reason: 'response_too_large' },
    });
  });

  it("refuses a server the session did not open, and the gateway's own server", async () => {
    const notOpened = await proxy(session, { server_id: 'freight-quotes', method: 'GET', path: '/account' });
    expect(notOpened.status).toBe(404);
    expect(notOpened.body.error.code).toBe('server_not_in_session');
    const gateway = await proxy(session, { server_id: 'gateway', method: 'GET', path: '/account' });
    expect(gateway.status).toBe(400);
    expect(gateway.body.error.code).toBe('server_not_proxyable');
  });

  it('refuses a provider whose connection was deleted after the session opened', async () => {
    const other = await gw.createTenant();
    const connection = await connect(other, 'pix-psp', API_KEY_SANDBOX);
    const otherSession = await openSession(other, ['pix-psp']);
    expect(
      (await gw.request('DELETE', `/v1/connections/${connection}`, { key: other.key })).status,
    ).toBeLessThan(300);
    const before = seen('auth_api_key');
    const r = await proxy(otherSession, { server_id: 'pix-psp', method: 'GET', path: '/account' }, other.key);
    expect(r.status).toBe(424);
    expect(r.body.error).toMatchObject({
      code: 'not_connected',
      details: { hint: 'POST /v1/providers/pix-psp/connections' },
    });
    expect(seen('auth_api_key')).toBe(before);
  });

  it('refuses a closed session', async () => {
    const closing = await openSession(t, ['pix-psp']);
    expect((await gw.request('POST', `/v1/sessions/${closing}/close`, { key: t.key })).status).toBe(200);
    const before = seen('auth_api_key');
    const r = await proxy(closing, { server_id: 'pix-psp', method: 'GET', path: '/account' });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('session_closed');
    expect(seen('auth_api_key')).toBe(before);
  });

  it("answers 404 for another organization's session", async () => {
    const other = await gw.createTenant();
    const before = seen('auth_api_key');
    const r = await proxy(session, { server_id: 'pix-psp', method: 'GET', path: '/account' }, other.key);
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('not_found');
    expect(seen('auth_api_key')).toBe(before);
  });

  it('refuses malformed input with invalid_body', async () => {
    for (const body of [
      { server_id: 'pix-psp', method: 'TRACE', path: '/x' },
      { server_id: 'pix-psp', method: 'GET', path: 'x' },
      { server_id: 'pix-psp', method: 'GET', path: '/x', headers: { 'bad header': 'v' } },
      { server_id: 'pix-psp', method: 'GET', path: '/x', headers: { a: 'v\r\nx: y' } },
      { server_id: 'pix-psp', method: 'GET', path: '/x', headers: { a: 'caf\u00e9 \u2615' } },
      { server_id: 'pix-psp', method: 'POST', path: '/x', body: 'a', body_base64: 'YQ==' },
    ]) {
      const r = await proxy(session, body);
      expect([r.status, r.body.error.code]).toEqual([400, 'invalid_body']);
    }
  });
});

describe('who may call proxy_execute', () => {
  it('refuses a restricted key, and proxy:execute cannot be listed on one', async () => {
    const restricted = await gw.createKey(t.projectId, {
      scopes: ['sessions:create', 'sessions:read', 'tools:execute', 'servers:read'],
    });
    const before = seen('auth_api_key');
    const r = await proxy(session, { server_id: 'pix-psp', method: 'GET', path: '/account' }, restricted.key);
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ error: 'forbidden' });
    expect(r.body.message).toContain('proxy:execute');
    expect(seen('auth_api_key')).toBe(before);

    const listed = await gw.operator('POST', '/v1/api-keys', {
      project: t.projectId,
      body: { name: 'proxy', scopes: ['proxy:execute'] },
    });
    expect(listed.status).toBe(400);
    expect(listed.body.error).toMatchObject({
      code: 'scope_not_grantable',
      details: { scopes: ['proxy:execute'] },
    });
  });

  it('lets an unrestricted key of the same project call it', async () => {
    const wildcard = await gw.createKey(t.projectId);
    const r = await proxy(session, { server_id: 'pix-psp', method: 'GET', path: '/account' }, wildcard.key);
    expect(r.body).toMatchObject({ status: 200, body: { id: expect.any(String) } });
  });
});
