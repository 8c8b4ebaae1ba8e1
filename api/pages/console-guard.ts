// Who may use the operator console and which posts it accepts. The only credential is the session
// cookie set at sign-in with the service token (a bearer header, API key or OAuth token counts for
// nothing here); every post must come from the console's own origin and, once signed in, carry the
// anti-forgery token derived from the session.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type Koa from 'koa';
import { findConsoleSession, sha256Hex, type ConsoleSession } from '../../domain/operations/console-sessions';
import type { AppDeps } from '../deps';
import { publicOrigin } from '../public-origin';

export const SESSION_COOKIE = 'gw_console';
const COOKIE_VALUE = /^[A-Za-z0-9_-]{43}$/;

export interface SignedIn {
  token: string;
  session: ConsoleSession;
  csrf: string;
}

/** Constant-time check of a pasted service token; lengths are not secret, digests are compared. */
export function isServiceToken(presented: string, expected: string | undefined): boolean {
  if (!expected || presented.length !== expected.length) return false;
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}

/** What a session remembers of the credential: a digest, so rotating the service token ends every session. */
export const credentialDigest = (serviceToken: string): string =>
  sha256Hex(`console-session:${serviceToken}`);

/** The form token for one session: an HMAC keyed by the session's secret, so only its holder can make it. */
export const csrfFor = (sessionToken: string): string =>
  createHmac('sha256', sessionToken).update('console-csrf').digest('base64url');

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

export async function signedIn(deps: AppDeps, ctx: Koa.Context): Promise<SignedIn | null> {
  const token = ctx.cookies.get(SESSION_COOKIE);
  if (!token || !COOKIE_VALUE.test(token) || !deps.config.serviceToken) return null;
  const session = await findConsoleSession(deps.db, token);
  if (!session || !sameSecret(session.credential_digest, credentialDigest(deps.config.serviceToken)))
    return null;
  return { token, session, csrf: csrfFor(token) };
}

/** Why a post is refused as not coming from the console itself, or null when it did. */
export function foreignPost(
  deps: AppDeps,
  ctx: Koa.Context,
  presentedCsrf: string | undefined,
  session: SignedIn | null,
): string | null {
  // Browsers send Origin on every form post; one that is absent or names another site is refused. Under
  // the console's own `Referrer-Policy: no-referrer` a browser sends `Origin: null` even from the console,
  // so `null` passes only with the fetch metadata (which pages cannot set) saying the post is same-origin.
  const expected = new URL(publicOrigin(deps.config, ctx)).origin;
  const origin = ctx.get('Origin');
  const site = ctx.get('Sec-Fetch-Site');
  if (!origin) return 'the request carried no Origin header';
  if (site && site !== 'same-origin') return `the request came from a ${site} page`;
  if (origin === 'null' ? site !== 'same-origin' : origin !== expected)
    return 'the request came from another origin';
  if (session && !(presentedCsrf && sameSecret(presentedCsrf, session.csrf)))
    return 'the form token is missing or does not match this sign-in';
  return null;
}

function secureCookie(deps: AppDeps, ctx: Koa.Context): boolean {
  return publicOrigin(deps.config, ctx).startsWith('https:');
}

export function sessionCookie(deps: AppDeps, ctx: Koa.Context, token: string, maxAgeSeconds: number): string {
  const secure = secureCookie(deps, ctx) ? '; Secure' : '';
  return `${SESSION_COOKIE}=${token}; Path=/console; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure}`;
}

export function clearedCookie(deps: AppDeps, ctx: Koa.Context): string {
  const secure = secureCookie(deps, ctx) ? '; Secure' : '';
  return `${SESSION_COOKIE}=; Path=/console; Max-Age=0; HttpOnly; SameSite=Strict${secure}`;
}
