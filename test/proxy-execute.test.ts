// The proxy core, called directly (its route needs sessions, which do not exist yet): a raw request to
// a connection's upstream with the credential injected, only the provider's own base URL reachable,
// private and loopback addresses refused in live mode, bodies capped, and the credential never echoed.
import { catalogServer } from '../domain/providers/catalog';
import { currentConnection } from '../domain/providers/connections';
import { keyServiceFor } from '../domain/vault/select';
import { API_KEY_SANDBOX } from '../providers/mocks/auth-api-key';
import { TWO_HEADER_SANDBOX } from '../providers/mocks/auth-two-header';
import type { AuthMock } from '../providers/mocks/auth-mock';
import { isPublicAddress } from '../providers/proxy/address-policy';
import {
  PROXY_MAX_REQUEST_BYTES,
  proxyExecute,
  ProxyRefused,
  type ProxyRequest,
} from '../providers/proxy/proxy-execute';
import { UpstreamUnreachable } from '../providers/upstream/send';
import { startGateway, type Gateway, type Tenant } from './support/harness';

let gw: Gateway;
let t: Tenant;
beforeAll(async () => {
  gw = await startGateway({ worker: false });
  t = await gw.createTenant();
  for (const [slug, credentials] of [
    ['pix-psp', API_KEY_SANDBOX],
    ['freight-quotes', TWO_HEADER_SANDBOX],
  ] as const) {
    const r = await gw.request('POST', `/v1/providers/${slug}/connections`, {
      key: t.key,
      body: { credentials },
    });
    if (r.status !== 201) throw new Error(r.text);
  }
});
afterAll(async () => {
  await gw?.stop();
});

const deps = () => ({
  db: gw.db,
  keys: keyServiceFor(gw.config.vault),
  oauthClient: undefined,
  endpoints: gw.config,
  timeoutMs: 5_000,
});

async function proxy(slug: string, init: Partial<ProxyRequest> = {}) {
  const server = catalogServer(slug)!;
  return proxyExecute(deps(), {
    server,
    environment: 'test',
    connection: await currentConnection(gw.db, t, slug),
    method: 'GET',
    path: '/account',
    headers: {},
    body: Buffer.alloc(0),
    ...init,
  });
}

describe("proxying to the connection's upstream", () => {
  it("sends the raw request with the stored credential injected and returns the provider's answer", async () => {
    const r = await proxy('pix-psp', {
      method: 'POST',
      path: '/charges?mode=qr',
      headers: { 'content-type': 'application/json' },
      body: Buffer.from('{"amount_minor":"990"}'),
    });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body.toString())).toEqual({
      method: 'POST',
      path: '/charges?mode=qr',
      received_bytes: 22,
    });
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.latency_ms).toBeGreaterThanOrEqual(0);
  });

  it("drops the caller's own credential headers, so a forged one never reaches the provider", async () => {
    const r = await proxy('pix-psp', {
      headers: { 'x-api-key': 'pk_forged_by_the_agent_0000', Authorization: 'Bearer agent' },
    });
    expect(r.status).toBe(200);
    const twoHeader = await proxy('freight-quotes', {
      headers: { authorization: 'Bearer agent', 'X-Client-Secret': 'forged' },
    });
    expect(twoHeader.status).toBe(200);
  });

  it('never echoes the stored credential, even when the provider does', async () => {
    (gw.mocks.auth_api_key as unknown as AuthMock).script({
      status: 200,
      body: { echoed: API_KEY_SANDBOX.api_key },
      headers: { 'x-request-id': `req-${API_KEY_SANDBOX.api_key}` },
    });
    const r = await proxy('pix-psp');
    expect(r.body.toString()).toBe('{"echoed":"[redacted]"}');
    expect(r.headers['x-request-id']).toBe('req-[redacted]');
  });
});

describe('what the proxy refuses to send', () => {
  it.each([['http://evil.example/x'], ['//evil.example/x'], ['account'], ['/\\evil']])(
    'refuses the path %s',
    async (path) => {
      await expect(proxy('pix-psp', { path })).rejects.toMatchObject({ code: 'proxy_path_invalid' });
    },
  );

  it("refuses a path that climbs out of the provider's base path", async () => {
    const saved = gw.config.providerUrls.auth_api_key;
    gw.config.providerUrls.auth_api_key = `${saved}/v1`;
    try {
      await expect(proxy('pix-psp', { path: '/../account' })).rejects.toMatchObject({
        code: 'proxy_path_invalid',
      });
      await expect(proxy('pix-psp', { path: '/%2e%2e/account' })).rejects.toMatchObject({
        code: 'proxy_path_invalid',
      });
    } finally {
      gw.config.providerUrls.auth_api_key = saved;
    }
  });

  it('refuses a body over the cap and an unknown method', async () => {
    await expect(
      proxy('pix-psp', { method: 'POST', body: Buffer.alloc(PROXY_MAX_REQUEST_BYTES + 1) }),
    ).rejects.toMatchObject({ code: 'proxy_body_too_large' });
    await expect(proxy('pix-psp', { method: 'TRACE' })).rejects.toBeInstanceOf(ProxyRefused);
  });

  it('refuses loopback, private and metadata addresses in live mode', async () => {
    const pix = catalogServer('pix-psp')!;
    for (const live of [
      'http://127.0.0.1:9/v1',
      'http://localhost:9',
      'http://10.1.2.3',
      'http://169.254.169.254/latest',
      'http://[::1]:9',
      'http://[::ffff:192.168.0.1]',
    ]) {
      const server = { ...pix, endpoints: { live } };
      await expect(
        proxyExecute(deps(), {
          server,
          environment: 'live',
          connection: null,
          method: 'GET',
          path: '/account',
          headers: {},
          body: Buffer.alloc(0),
        }),
      ).rejects.toMatchObject({ code: 'proxy_destination_forbidden' });
    }
  });

  it("caps the provider's answer", async () => {
    (gw.mocks.auth_api_key as unknown as AuthMock).script({
      status: 200,
      body: { blob: 'x'.repeat(6 * 1024 * 1024) },
    });
    await expect(proxy('pix-psp')).rejects.toBeInstanceOf(UpstreamUnreachable);
  });
});

describe('address policy', () => {
  it.each([
    ['8.8.8.8', true],
    ['2606:4700:4700::1111', true],
    ['127.0.0.1', false],
    ['10.0.0.1', false],
    ['172.20.1.1', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['::1', false],
    ['fd00::1', false],
    ['fe80::1', false],
    ['::ffff:127.0.0.1', false],
    ['not-an-ip', false],
  ])('%s is public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});
