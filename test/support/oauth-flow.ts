// Drives the OAuth flow over HTTP for tests: register a client, post the consent form, exchange the
// code, refresh. Each step returns the raw HTTP result so tests can assert on refusals too.
import { createHash, randomBytes } from 'node:crypto';
import type { GatewayClient as Gateway, HttpResult } from './client';

export const REDIRECT_URI = 'http://127.0.0.1:8976/callback';

export interface Pkce {
  verifier: string;
  challenge: string;
}

export function pkce(): Pkce {
  const verifier = randomBytes(48).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function form(values: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) if (value !== undefined) params.append(name, value);
  return params.toString();
}

export async function registerClient(gw: Gateway, body: Record<string, unknown> = {}): Promise<string> {
  const result = await gw.request('POST', '/oauth/register', {
    body: { client_name: 'Test agent', redirect_uris: [REDIRECT_URI], ...body },
  });
  if (result.status !== 201) throw new Error(`registration failed: ${result.status} ${result.text}`);
  return result.body.client_id as string;
}

export interface AuthorizationInput {
  clientId: string;
  challenge: string;
  redirectUri?: string;
  scope?: string;
  state?: string;
}

export function authorizationParams(input: AuthorizationInput): Record<string, string | undefined> {
  return {
    response_type: 'code',
    client_id: input.clientId,
    redirect_uri: input.redirectUri ?? REDIRECT_URI,
    code_challenge: input.challenge,
    code_challenge_method: 'S256',
    scope: input.scope,
    state: input.state,
  };
}

export function authorizePath(
  input: AuthorizationInput,
  overrides: Record<string, string | undefined> = {},
): string {
  return `/oauth/authorize?${form({ ...authorizationParams(input), ...overrides })}`;
}

export function postConsent(gw: Gateway, fields: Record<string, string | undefined>): Promise<HttpResult> {
  return gw.request('POST', '/oauth/authorize', {
    raw: form(fields),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  });
}

/** Approves with a pasted key and returns the code from the redirect (throws when no redirect came). */
export async function approve(
  gw: Gateway,
  input: AuthorizationInput & { apiKey: string },
): Promise<{ code: string; location: URL }> {
  const result = await postConsent(gw, { ...authorizationParams(input), api_key: input.apiKey });
  const location = result.headers.get('location');
  if (result.status !== 302 || !location)
    throw new Error(`consent failed: ${result.status} ${result.text.slice(0, 500)}`);
  const url = new URL(location);
  return { code: url.searchParams.get('code') ?? '', location: url };
}

export function tokenRequest(
  gw: Gateway,
  fields: Record<string, string | undefined>,
  as: 'form' | 'json' = 'form',
): Promise<HttpResult> {
  if (as === 'json') return gw.request('POST', '/oauth/token', { body: fields });
  return gw.request('POST', '/oauth/token', {
    raw: form(fields),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  });
}

export function exchangeCode(
  gw: Gateway,
  input: { code: string; clientId: string; verifier: string; redirectUri?: string },
): Promise<HttpResult> {
  return tokenRequest(gw, {
    grant_type: 'authorization_code',
    code: input.code,
    code_verifier: input.verifier,
    redirect_uri: input.redirectUri ?? REDIRECT_URI,
    client_id: input.clientId,
  });
}

export function refresh(
  gw: Gateway,
  refreshToken: string,
  extra: Record<string, string> = {},
): Promise<HttpResult> {
  return tokenRequest(gw, { grant_type: 'refresh_token', refresh_token: refreshToken, ...extra });
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  scope: string;
  expires_in: number;
  token_type: string;
}

/** The whole flow with a pasted key: register (unless a client is given), approve, exchange. */
export async function connect(
  gw: Gateway,
  apiKey: string,
  options: { scope?: string; clientId?: string } = {},
): Promise<{ clientId: string; tokens: Tokens; pkce: Pkce; code: string }> {
  const clientId = options.clientId ?? (await registerClient(gw));
  const pair = pkce();
  const { code } = await approve(gw, {
    clientId,
    challenge: pair.challenge,
    scope: options.scope,
    state: 'xyz',
    apiKey,
  });
  const exchanged = await exchangeCode(gw, { code, clientId, verifier: pair.verifier });
  if (exchanged.status !== 200) throw new Error(`exchange failed: ${exchanged.status} ${exchanged.text}`);
  return { clientId, tokens: exchanged.body as Tokens, pkce: pair, code };
}
