// Cross-site request forgery guard of the hosted consent page's own submit. The page carries a token
// derived from its consent token, which its script sends back in a header; a browser only sends a custom
// header cross-origin after a CORS preflight, which the gateway never grants, and the fetch metadata a
// browser adds must say the request came from this origin. So only the page itself can submit.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type Koa from 'koa';
import { ApiError } from '../../domain/errors';
import type { KeyRing } from '../../domain/crypto/secret-box';

export const CSRF_HEADER = 'X-Consent-Csrf';

// Derived per key version so the HMAC key is never the encryption key itself, and a page rendered just
// before a key rotation still submits (every version in the ring verifies).
const derived = new Map<Buffer, Buffer>();
function csrfKey(key: Buffer): Buffer {
  let value = derived.get(key);
  if (!value) {
    value = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'consent-page-csrf', 32));
    derived.set(key, value);
  }
  return value;
}

const mac = (key: Buffer, digest: string) =>
  createHmac('sha256', csrfKey(key)).update(digest).digest('base64url');

/** The page's anti-forgery token for one consent token (by its digest): `<key version>.<mac>`. */
export function consentCsrfToken(ring: KeyRing, digest: string): string {
  return `${ring.current}.${mac(ring.keys.get(ring.current)!, digest)}`;
}

function tokenMatches(ring: KeyRing, digest: string, presented: string): boolean {
  const match = /^(\d{1,6})\.([A-Za-z0-9_-]{43})$/.exec(presented);
  const key = match ? ring.keys.get(Number(match[1])) : undefined;
  if (!match || !key) return false;
  return timingSafeEqual(Buffer.from(match[2]), Buffer.from(mac(key, digest)));
}

const refused = (reason: string) =>
  new ApiError(403, 'csrf_refused', `This submit did not come from the consent page: ${reason}`);

/** Refuses a submit that did not come from the consent page itself; `origin` is the page's own origin. */
export function checkConsentCsrf(ctx: Koa.Context, ring: KeyRing, digest: string, origin: string): void {
  // Browsers send Sec-Fetch-Site and Origin on every POST; tools that send neither still need the header token.
  const site = ctx.get('Sec-Fetch-Site');
  if (site && site !== 'same-origin') throw refused(`Sec-Fetch-Site is ${site}`);
  const from = ctx.get('Origin');
  if (from && from !== origin) throw refused('another origin');
  if (!tokenMatches(ring, digest, ctx.get(CSRF_HEADER)))
    throw refused(`missing or wrong ${CSRF_HEADER} header`);
}
