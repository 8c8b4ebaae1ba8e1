// How the card issuer signs what it sends the gateway (authorization requests and later messages), the way
// Stripe signs its webhooks: HMAC-SHA256 with the shared webhook secret over `<timestamp>.<raw body>`, sent as
// `Issuer-Signature: t=<unix seconds>,v1=<hex>`. The timestamp is signed so a captured message cannot be
// replayed later; during a secret rotation the issuer may send several `v1` values, any one of which verifies.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const ISSUER_SIGNATURE_HEADER = 'issuer-signature';
/** How far a message's timestamp may be from the receiver's clock. */
export const ISSUER_SIGNATURE_TOLERANCE_SECONDS = 300;

function mac(secret: string, timestamp: number, rawBody: string | Buffer): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
}

export function signIssuerMessage(secret: string, timestamp: number, rawBody: string | Buffer): string {
  return `t=${timestamp},v1=${mac(secret, timestamp, rawBody)}`;
}

export type IssuerSignatureCheck = { ok: true } | { ok: false; reason: string };

/** Checks a message's signature header in constant time; `nowSeconds` is the receiver's clock. */
export function verifyIssuerMessage(
  secret: string,
  header: string | undefined,
  rawBody: Buffer,
  nowSeconds: number,
): IssuerSignatureCheck {
  if (!header) return { ok: false, reason: 'signature_missing' };
  const parts = header.split(',').map((part) => part.trim().split('='));
  const timestamps = parts.filter(([key]) => key === 't').map(([, value]) => value ?? '');
  const signatures = parts.filter(([key]) => key === 'v1').map(([, value]) => value ?? '');
  if (timestamps.length !== 1 || !/^\d{1,12}$/.test(timestamps[0]))
    return { ok: false, reason: 'timestamp_invalid' };
  const timestamp = Number(timestamps[0]);
  if (Math.abs(nowSeconds - timestamp) > ISSUER_SIGNATURE_TOLERANCE_SECONDS)
    return { ok: false, reason: 'timestamp_out_of_tolerance' };
  const expected = Buffer.from(mac(secret, timestamp, rawBody), 'utf8');
  const matches = signatures.some((signature) => {
    const presented = Buffer.from(signature, 'utf8');
    return presented.length === expected.length && timingSafeEqual(presented, expected);
  });
  return matches ? { ok: true } : { ok: false, reason: 'signature_mismatch' };
}
