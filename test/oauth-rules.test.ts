// The pure OAuth rules, table by table: redirect URIs, scopes, PKCE, authorization requests, and
// the verdicts on code redemption and refresh at a given clock.
import { checkAuthorizationRequest } from '../domain/oauth/authorization-request';
import type { OAuthClient } from '../domain/oauth/clients';
import { judgeRedemption } from '../domain/oauth/code-redemption';
import { hashCredential, isCredentialOf, mintCredential } from '../domain/oauth/credentials';
import { OAuthError } from '../domain/oauth/errors';
import { isS256Challenge, s256Challenge, verifyS256 } from '../domain/oauth/pkce';
import { redirectUriProblem, redirectWith } from '../domain/oauth/redirect-uri';
import { judgeRefresh } from '../domain/oauth/refresh';
import { effectiveScopes, grantScopes, parseScope } from '../domain/oauth/scope';
import { parseTokenRequest } from '../domain/oauth/token-request';
import { normalizeClientName } from '../domain/oauth/client-metadata';

describe('redirect URIs', () => {
  it.each([
    ['https://app.example.com/cb', null],
    ['https://app.example.com:8443/cb?x=1', null],
    ['http://localhost:3000/cb', null],
    ['http://127.0.0.1/cb', null],
    ['http://127.200.1.9:1/cb', null],
    ['http://[::1]:9000/cb', null],
    ['http://app.example.com/cb', 'must use https'],
    ['http://localhost.example.com/cb', 'must use https'],
    ['http://127.0.0.1.nip.io/cb', 'must use https'],
    ['http://[::2]/cb', 'must use https'],
    ['https://app.example.com/cb#x', 'fragment'],
    ['https://u:p@app.example.com/cb', 'user information'],
    ['https://app.example.com\\@evil.example/', 'characters'],
    [' https://app.example.com/cb', 'characters'],
    ['https://app.example.com/c b', 'characters'],
    ['/relative', 'absolute URL'],
    ['myapp://cb', 'must use https'],
    ['javascript:alert(1)', 'must use https'],
    ['data:text/html,hi', 'must use https'],
    ['', 'non-empty'],
  ])('%s → %s', (uri, problem) => {
    const found = redirectUriProblem(uri);
    if (problem === null) expect(found).toBeNull();
    else expect(found).toContain(problem);
  });

  it('refuses a URI over 2000 characters', () => {
    expect(redirectUriProblem(`https://app.example.com/${'a'.repeat(2000)}`)).toContain('at most 2000');
  });

  it('keeps the registered query and appends the response parameters', () => {
    expect(redirectWith('https://a.example/cb?t=1', { code: 'c d', state: 's&x', iss: null })).toBe(
      'https://a.example/cb?t=1&code=c+d&state=s%26x',
    );
  });
});

describe('scopes', () => {
  it.each<[string | undefined, string[] | null | 'invalid_scope']>([
    [undefined, null],
    ['', null],
    ['  ', null],
    ['tools:execute sessions:read', ['sessions:read', 'tools:execute']],
    ['sessions:read sessions:read', ['sessions:read']],
    ['sessions:read *', 'invalid_scope'],
    ['admin', 'invalid_scope'],
  ])('parseScope(%j) → %j', (raw, expected) => {
    if (expected === 'invalid_scope')
      expect(() => parseScope(raw)).toThrow(expect.objectContaining({ code: 'invalid_scope' }));
    else expect(parseScope(raw)).toEqual(expected);
  });

  it.each<[string[] | null, string[], string[] | 'invalid_scope']>([
    [
      null,
      ['*'],
      [
        'sessions:create',
        'sessions:read',
        'tools:execute',
        'servers:read',
        'projects:settings',
        'proxy:execute',
        'consents:write',
      ],
    ],
    [['proxy:execute'], ['*'], ['proxy:execute']],
    [null, ['servers:read', 'sessions:read'], ['sessions:read', 'servers:read']],
    [['sessions:read'], ['sessions:read', 'servers:read'], ['sessions:read']],
    [['tools:execute'], ['sessions:read'], 'invalid_scope'],
    [['tools:execute', 'proxy:execute'], ['sessions:read', 'servers:read'], 'invalid_scope'],
    [['sessions:read', 'tools:execute'], ['sessions:read'], ['sessions:read']],
    [['tools:execute', 'proxy:execute', 'consents:write'], ['tools:execute'], ['tools:execute']],
    [['tools:execute'], ['*'], ['tools:execute']],
    [null, [], 'invalid_scope'],
    [['tools:execute'], [], 'invalid_scope'],
  ])('grantScopes(%j, key %j) → %j', (requested, keyScopes, expected) => {
    const run = () => grantScopes(requested as never, keyScopes);
    if (expected === 'invalid_scope') expect(run).toThrow(OAuthError);
    else expect(run()).toEqual(expected);
  });

  it.each([
    [['sessions:read', 'tools:execute'], ['*'], ['sessions:read', 'tools:execute']],
    [['sessions:read', 'tools:execute'], ['sessions:read'], ['sessions:read']],
    [['sessions:read'], [], []],
  ])('a token with %j on a key with %j acts with %j', (token, key, expected) => {
    expect(effectiveScopes(token, key)).toEqual(expected);
  });
});

describe('PKCE S256', () => {
  it('matches the RFC 7636 appendix B example', () => {
    expect(s256Challenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
    expect(
      verifyS256(
        'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
        'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      ),
    ).toBe(true);
  });

  it.each([
    [
      'a different verifier',
      'eBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    ],
    [
      'the challenge as verifier (plain)',
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    ],
    ['a verifier under 43 characters', 'short', s256Challenge('short')],
    ['a verifier over 128 characters', 'a'.repeat(129), s256Challenge('a'.repeat(129))],
    [
      'a malformed challenge',
      'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-c=',
    ],
  ])('refuses %s', (_label, verifier, challenge) => {
    expect(verifyS256(verifier, challenge)).toBe(false);
  });

  it('recognizes S256 challenges only', () => {
    expect(isS256Challenge('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM')).toBe(true);
    expect(isS256Challenge('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-c')).toBe(false);
  });
});

describe('credentials', () => {
  it.each(['authorization_code', 'access_token', 'refresh_token'] as const)(
    'mints %s values with their own prefix and hashes them to hex',
    (kind) => {
      const value = mintCredential(kind);
      expect(isCredentialOf(kind, value)).toBe(true);
      expect(value).toHaveLength(50);
      expect(hashCredential(value)).toMatch(/^[0-9a-f]{64}$/);
      for (const other of ['authorization_code', 'access_token', 'refresh_token'] as const)
        if (other !== kind) expect(isCredentialOf(other, value)).toBe(false);
    },
  );

  it('cuts client names to 256 characters without splitting a character, and drops control characters', () => {
    expect(normalizeClientName('😀'.repeat(300))).toBe('😀'.repeat(256));
    expect(normalizeClientName(' a\u0000b\n ')).toBe('a b');
    expect(normalizeClientName('   ')).toBeNull();
  });
});

describe('authorization requests', () => {
  const client: OAuthClient = {
    id: 'ocl_AAAAAAAAAAAAAAAAAAAAAAAA',
    client_name: 'Agent',
    redirect_uris: ['https://a.example/cb'],
    grant_types: [],
    response_types: [],
    token_endpoint_auth_method: 'none',
    created_at: '2026-01-01T00:00:00.000Z',
  };
  const good = {
    client_id: client.id,
    redirect_uri: 'https://a.example/cb',
    response_type: 'code',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  };

  it('accepts a complete request', () => {
    expect(checkAuthorizationRequest(client, { ...good, scope: 'sessions:read', state: 'x' })).toMatchObject({
      scopes: ['sessions:read'],
      state: 'x',
      redirectUri: 'https://a.example/cb',
    });
  });

  it.each<[string, OAuthClient | null, Record<string, string | undefined>, string]>([
    ['an unknown client', null, {}, 'invalid_client'],
    ['a missing client_id', client, { client_id: undefined }, 'invalid_request'],
    ['a redirect_uri differing in case', client, { redirect_uri: 'https://A.example/cb' }, 'invalid_request'],
    [
      'a redirect_uri with a trailing slash',
      client,
      { redirect_uri: 'https://a.example/cb/' },
      'invalid_request',
    ],
    ['response_type token', client, { response_type: 'token' }, 'unsupported_response_type'],
    ['a missing code_challenge_method', client, { code_challenge_method: undefined }, 'invalid_request'],
    ['code_challenge_method plain', client, { code_challenge_method: 'plain' }, 'invalid_request'],
    ['an over-long state', client, { state: 's'.repeat(2049) }, 'invalid_request'],
    ['an unknown scope', client, { scope: 'everything' }, 'invalid_scope'],
  ])('refuses %s', (_label, which, override, code) => {
    expect(() => checkAuthorizationRequest(which, { ...good, ...override })).toThrow(
      expect.objectContaining({ code }),
    );
  });
});

describe('code redemption verdicts', () => {
  const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
  const stored = {
    client_id: 'ocl_a',
    redirect_uri: 'https://a.example/cb',
    code_challenge: s256Challenge(verifier),
    expires_at: '2026-01-01T00:01:00.000Z',
    redeemed_at: null as string | null,
    grant_revoked: false,
    key_revoked: false,
    now: '2026-01-01T00:00:30.000Z',
  };
  const request = { clientId: 'ocl_a', redirectUri: 'https://a.example/cb', codeVerifier: verifier };

  it.each<[string, string, Partial<typeof stored>, Partial<typeof request>]>([
    ['a fresh code', 'issue', {}, {}],
    ['a code already redeemed', 'reuse', { redeemed_at: '2026-01-01T00:00:10.000Z' }, {}],
    [
      'a redeemed code even with a wrong verifier',
      'reuse',
      { redeemed_at: '2026-01-01T00:00:10.000Z' },
      { codeVerifier: 'x'.repeat(43) },
    ],
    ['another client', 'refuse', {}, { clientId: 'ocl_b' }],
    ['another redirect URI', 'refuse', {}, { redirectUri: 'https://a.example/other' }],
    ['a wrong verifier', 'refuse', {}, { codeVerifier: 'x'.repeat(43) }],
    ['the last valid millisecond', 'issue', { now: '2026-01-01T00:00:59.999Z' }, {}],
    ['the expiry instant', 'refuse', { now: '2026-01-01T00:01:00.000Z' }, {}],
    ['a revoked key', 'refuse', { key_revoked: true }, {}],
    ['a revoked grant', 'refuse', { grant_revoked: true }, {}],
  ])('%s → %s', (_label, kind, storedOverride, requestOverride) => {
    expect(judgeRedemption({ ...stored, ...storedOverride }, { ...request, ...requestOverride }).kind).toBe(
      kind,
    );
  });
});

describe('refresh verdicts', () => {
  const stored = {
    client_id: 'ocl_a',
    scopes: ['sessions:read', 'servers:read'],
    expires_at: '2026-02-01T00:00:00.000Z',
    rotated_at: null as string | null,
    grant_revoked: false,
    key_revoked: false,
    now: '2026-01-15T00:00:00.000Z',
  };

  it.each<
    [
      string,
      string,
      Partial<typeof stored>,
      { clientId?: string | null; scope?: string | null },
      string[] | null,
    ]
  >([
    ['a live token', 'issue', {}, {}, ['sessions:read', 'servers:read']],
    ['a rotated token', 'reuse', { rotated_at: '2026-01-14T00:00:00.000Z' }, {}, null],
    [
      'a rotated token of a revoked grant',
      'reuse',
      { rotated_at: '2026-01-14T00:00:00.000Z', grant_revoked: true },
      {},
      null,
    ],
    ['an expired token', 'refuse', { now: '2026-02-01T00:00:00.000Z' }, {}, null],
    ['a revoked key', 'refuse', { key_revoked: true }, {}, null],
    ['another client', 'refuse', {}, { clientId: 'ocl_b' }, null],
    ['its own client', 'issue', {}, { clientId: 'ocl_a' }, ['sessions:read', 'servers:read']],
    ['a narrower scope', 'issue', {}, { scope: 'servers:read' }, ['servers:read']],
    ['a wider scope', 'refuse', {}, { scope: 'servers:read tools:execute' }, null],
    ['an unknown scope', 'refuse', {}, { scope: 'nope' }, null],
  ])('%s → %s', (_label, kind, storedOverride, request, scopes) => {
    const verdict = judgeRefresh(
      { ...stored, ...storedOverride },
      { clientId: null, scope: null, ...request },
    );
    expect(verdict.kind).toBe(kind);
    if (scopes) expect(verdict).toEqual({ kind: 'issue', scopes });
  });
});

describe('token requests', () => {
  it.each<[string, unknown, string]>([
    ['an array body', [], 'invalid_request'],
    ['a missing grant_type', {}, 'invalid_request'],
    ['an implicit grant', { grant_type: 'implicit' }, 'unsupported_grant_type'],
    ['a numeric code', { grant_type: 'authorization_code', code: 1 }, 'invalid_request'],
    [
      'a code grant without redirect_uri',
      { grant_type: 'authorization_code', code: 'c', code_verifier: 'v', client_id: 'x' },
      'invalid_request',
    ],
  ])('refuses %s with %s', (_label, body, code) => {
    expect(() => parseTokenRequest(body)).toThrow(expect.objectContaining({ code }));
  });

  it('reads a refresh grant, client_id optional', () => {
    expect(parseTokenRequest({ grant_type: 'refresh_token', refresh_token: 'r', extra: 'ignored' })).toEqual({
      grantType: 'refresh_token',
      refreshToken: 'r',
      clientId: null,
      scope: null,
    });
  });
});
