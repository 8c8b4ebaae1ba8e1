// Mock provider for `oauth`: an authorization server (authorize auto-approves the sandbox user and
// redirects with a code; token exchanges codes and refresh tokens, rotating the refresh token) and an
// API that accepts only a live access token as `Authorization: Bearer`.
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { startAuthMock, type AuthMock, type InboundRequest } from './auth-mock';

/** The sandbox OAuth client the gateway registers with (its live client comes from configuration). */
export const OAUTH_SANDBOX_CLIENT = { client_id: 'gateway-sandbox', client_secret: 'gateway-sandbox-secret' };

export interface OAuthMock extends AuthMock {
  settings: { accessTokenTtlS: number };
  /** Refresh-token grants answered so far. */
  refreshes: () => number;
}

function json(res: ServerResponse, status: number, body: unknown): true {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
  return true;
}

export async function startOAuthMock(): Promise<OAuthMock> {
  const settings = { accessTokenTtlS: 3600 };
  const codes = new Map<string, string>(); // code → redirect_uri
  const accessTokens = new Map<string, number>(); // token → expiry (ms)
  const refreshTokens = new Set<string>();
  let refreshes = 0;
  const issue = (res: ServerResponse) => {
    const access = `at_${randomBytes(12).toString('hex')}`;
    const refresh = `rt_${randomBytes(12).toString('hex')}`;
    accessTokens.set(access, Date.now() + settings.accessTokenTtlS * 1000);
    refreshTokens.add(refresh);
    return json(res, 200, {
      access_token: access,
      refresh_token: refresh,
      token_type: 'Bearer',
      expires_in: settings.accessTokenTtlS,
      scope: 'dda.read dda.write',
    });
  };
  const open = (r: InboundRequest, res: ServerResponse): boolean => {
    const url = new URL(r.url, 'http://mock');
    if (r.method === 'GET' && url.pathname === '/oauth/authorize') {
      const redirect = url.searchParams.get('redirect_uri');
      if (
        url.searchParams.get('client_id') !== OAUTH_SANDBOX_CLIENT.client_id ||
        !redirect ||
        url.searchParams.get('response_type') !== 'code'
      ) {
        return json(res, 400, { error: 'invalid_request' });
      }
      const code = `code_${randomBytes(8).toString('hex')}`;
      codes.set(code, redirect);
      const target = new URL(redirect);
      target.searchParams.set('code', code);
      target.searchParams.set('state', url.searchParams.get('state') ?? '');
      res.writeHead(302, { location: target.toString() });
      res.end();
      return true;
    }
    if (r.method === 'POST' && url.pathname === '/oauth/token') {
      const form = new URLSearchParams(r.body.toString('utf8'));
      if (
        form.get('client_id') !== OAUTH_SANDBOX_CLIENT.client_id ||
        form.get('client_secret') !== OAUTH_SANDBOX_CLIENT.client_secret
      )
        return json(res, 401, { error: 'invalid_client' });
      if (form.get('grant_type') === 'authorization_code') {
        const code = form.get('code') ?? '';
        if (codes.get(code) !== form.get('redirect_uri')) return json(res, 400, { error: 'invalid_grant' });
        codes.delete(code);
        return issue(res);
      }
      if (form.get('grant_type') === 'refresh_token') {
        const token = form.get('refresh_token') ?? '';
        if (!refreshTokens.delete(token)) return json(res, 400, { error: 'invalid_grant' });
        refreshes++;
        return issue(res);
      }
      return json(res, 400, { error: 'unsupported_grant_type' });
    }
    return false;
  };
  const mock = await startAuthMock({
    credentials: {},
    account: { id: 'dda_acct_5', name: 'Acme Payables' },
    open,
    check: (r) => {
      const token = /^Bearer (.+)$/.exec(r.headers.authorization ?? '')?.[1];
      const expiry = token ? accessTokens.get(token) : undefined;
      if (expiry === undefined) return 'Access token is invalid';
      return expiry > Date.now() ? null : 'Access token expired';
    },
  });
  return { ...mock, settings, refreshes: () => refreshes };
}
