// Each of the nine credential injections against its mock provider (a real HTTP or HTTPS server):
// the sandbox credential is accepted, and a wrong one is refused by the mock itself, in its own words.
import { catalogServer, type CatalogServer } from '../../domain/providers/catalog';
import { injectCredential, type Credential } from '../../providers/auth';
import { sendUpstream } from '../../providers/upstream/send';
import type { AuthMock } from '../../providers/mocks/auth-mock';
import { startApiKeyMock } from '../../providers/mocks/auth-api-key';
import { startPathSecretMock } from '../../providers/mocks/auth-path-secret';
import { startOAuthMock, OAUTH_SANDBOX_CLIENT } from '../../providers/mocks/auth-oauth';
import { CERT_MOCK_CA, CERT_ROGUE, startCertMock } from '../../providers/mocks/auth-cert';
import { startHmacMock } from '../../providers/mocks/auth-hmac';
import { startJwtEcdsaMock } from '../../providers/mocks/auth-jwt-ecdsa';
import { startTwoHeaderMock } from '../../providers/mocks/auth-two-header';
import { startCdpMock } from '../../providers/mocks/auth-cdp';
import { startNoneMock } from '../../providers/mocks/auth-none';
import { sandboxKeyPair } from '../../providers/mocks/es256-token';

const limits = { timeoutMs: 5_000, maxResponseBytes: 1 << 20 };

async function call(
  mock: AuthMock,
  server: CatalogServer,
  credential: Credential,
  init: { method?: string; path?: string; body?: string; headers?: Record<string, string> } = {},
) {
  const request = injectCredential(
    {
      method: init.method ?? 'GET',
      url: new URL(`${mock.url}${init.path ?? '/account'}`),
      headers: { 'content-type': 'application/json', ...init.headers },
      body: Buffer.from(init.body ?? ''),
      tls: mock.url.startsWith('https') ? { ca: CERT_MOCK_CA() } : undefined,
    },
    credential,
    server,
  );
  const answer = await sendUpstream(request, limits);
  return {
    status: answer.status,
    body: answer.body.length ? JSON.parse(answer.body.toString('utf8')) : undefined,
  };
}

async function oauthToken(mock: AuthMock): Promise<string> {
  const redirect = 'http://127.0.0.1:1/callback';
  const authorize = await fetch(
    `${mock.url}/oauth/authorize?client_id=${OAUTH_SANDBOX_CLIENT.client_id}&response_type=code&redirect_uri=${encodeURIComponent(redirect)}&state=s1`,
    { redirect: 'manual' },
  );
  const code = new URL(authorize.headers.get('location')!).searchParams.get('code')!;
  const token = await fetch(`${mock.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirect,
      ...OAUTH_SANDBOX_CLIENT,
    }).toString(),
  });
  return ((await token.json()) as { access_token: string }).access_token;
}

const wrongEcKey = () => sandboxKeyPair().privatePem;

// [auth type, catalog server, mock starter, good credential, wrong credential]
type Case = [
  string,
  string,
  () => Promise<AuthMock>,
  (mock: AuthMock) => Promise<Credential> | Credential,
  (mock: AuthMock) => Credential,
];
const cases: Case[] = [
  [
    'api_key',
    'pix-psp',
    startApiKeyMock,
    (m) => m.credentials,
    () => ({ api_key: 'pk_sandbox_pixpsp_wrong_9999' }),
  ],
  [
    'path_secret',
    'sms-otp',
    startPathSecretMock,
    (m) => m.credentials,
    (m) => ({ ...m.credentials, token: 'wrongToken0000000001' }),
  ],
  [
    'oauth',
    'dda-hub',
    startOAuthMock,
    async (m) => ({ access_token: await oauthToken(m) }),
    () => ({ access_token: 'at_forged' }),
  ],
  ['cert', 'ted-bank', startCertMock, (m) => m.credentials, () => CERT_ROGUE()],
  [
    'hmac_signed',
    'nfe-issuer',
    startHmacMock,
    (m) => m.credentials,
    (m) => ({ ...m.credentials, secret: 'd3Jvbmctc2lnbmluZy1zZWNyZXQtMDAwMDAw' }),
  ],
  [
    'jwt_ecdsa',
    'stablecoin-rails',
    startJwtEcdsaMock,
    (m) => m.credentials,
    (m) => ({ ...m.credentials, private_key: wrongEcKey() }),
  ],
  [
    'two_header',
    'freight-quotes',
    startTwoHeaderMock,
    (m) => m.credentials,
    (m) => ({ ...m.credentials, client_secret: 'wrong_secret_00000000001' }),
  ],
  [
    'cdp',
    'x402-facilitator',
    startCdpMock,
    (m) => m.credentials,
    (m) => ({ ...m.credentials, private_key: wrongEcKey() }),
  ],
];

describe.each(cases)('%s injection', (authType, slug, start, good, wrong) => {
  let mock: AuthMock;
  const server = () => catalogServer(slug)!;
  beforeAll(async () => {
    mock = await start();
  });
  afterAll(async () => {
    await mock.stop();
  });

  it("is the catalog server's auth type", () => {
    expect(server().auth_type).toBe(authType);
  });

  it('is accepted by the mock with the sandbox credential', async () => {
    const r = await call(mock, server(), await good(mock));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: expect.any(String), name: expect.any(String) });
  });

  it('signs or carries the credential on a POST with a body too', async () => {
    const r = await call(mock, server(), await good(mock), {
      method: 'POST',
      path: '/charges?dry_run=1',
      body: '{"amount_minor":"100"}',
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ method: 'POST', path: '/charges?dry_run=1', received_bytes: 22 });
  });

  it("is refused by the mock, in the provider's words, with a wrong credential", async () => {
    const refusedBefore = mock.counts.refused;
    const r = await call(mock, server(), wrong(mock));
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ error: 'invalid_credentials', message: expect.any(String) });
    expect(mock.counts.refused).toBe(refusedBefore + 1);
  });
});

describe('cert injection without a certificate', () => {
  it('is refused by the mock when no client certificate is presented', async () => {
    const mock = await startCertMock();
    try {
      const answer = await sendUpstream(
        {
          method: 'GET',
          url: new URL(`${mock.url}/account`),
          headers: {},
          body: Buffer.alloc(0),
          tls: { ca: CERT_MOCK_CA() },
        },
        limits,
      );
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.body.toString()).message).toBe('Client certificate required');
    } finally {
      await mock.stop();
    }
  });
});

describe('none injection', () => {
  it('sends no credential, dropping a stray authorization header, and the mock accepts', async () => {
    const mock = await startNoneMock();
    try {
      const r = await call(
        mock,
        catalogServer('postal-codes')!,
        {},
        { headers: { authorization: 'Bearer leaked' } },
      );
      expect(r.status).toBe(200);
      const direct = await fetch(`${mock.url}/account`, { headers: { authorization: 'Bearer leaked' } });
      expect(direct.status).toBe(401);
    } finally {
      await mock.stop();
    }
  });
});

describe('the signed injections bind the request', () => {
  it('refuses a jwt_ecdsa token replayed on another path', async () => {
    const mock = await startJwtEcdsaMock();
    try {
      const signed = injectCredential(
        { method: 'GET', url: new URL(`${mock.url}/account`), headers: {}, body: Buffer.alloc(0) },
        mock.credentials,
        catalogServer('stablecoin-rails')!,
      );
      const replayed = await sendUpstream({ ...signed, url: new URL(`${mock.url}/balances`) }, limits);
      expect(replayed.status).toBe(401);
    } finally {
      await mock.stop();
    }
  });

  it('refuses an hmac signature made five minutes and more ago', async () => {
    const mock = await startHmacMock();
    try {
      const stale = injectCredential(
        { method: 'GET', url: new URL(`${mock.url}/account`), headers: {}, body: Buffer.alloc(0) },
        mock.credentials,
        catalogServer('nfe-issuer')!,
        new Date(Date.now() - 301_000),
      );
      expect((await sendUpstream(stale, limits)).status).toBe(401);
    } finally {
      await mock.stop();
    }
  });
});
