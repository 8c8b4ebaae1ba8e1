// How the DDA provider signs its webhooks, the way Brazilian banking APIs commonly do: HMAC-SHA256 with the
// shared webhook secret over `<timestamp>.<raw body>`, hex, sent as `X-DDA-Signature: v1=<hex>` beside
// `X-DDA-Timestamp: <unix seconds>`. The timestamp is signed so a captured webhook cannot be replayed later.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const DDA_SIGNATURE_HEADER = 'x-dda-signature';
export const DDA_TIMESTAMP_HEADER = 'x-dda-timestamp';
/** How far a webhook's timestamp may be from the receiver's clock. */
export const DDA_SIGNATURE_TOLERANCE_SECONDS = 300;

export function signDdaWebhook(secret: string, timestamp: number, rawBody: string | Buffer): string {
  const mac = createHmac('sha256', secret);
  mac.update(`${timestamp}.`);
  mac.update(rawBody);
  return `v1=${mac.digest('hex')}`;
}

export type DdaSignatureCheck = { ok: true } | { ok: false; reason: string };

/** Checks a webhook's signature and timestamp in constant time; `nowSeconds` is the receiver's clock. */
export function verifyDdaWebhook(
  secret: string,
  headers: { signature: string | undefined; timestamp: string | undefined },
  rawBody: Buffer,
  nowSeconds: number,
): DdaSignatureCheck {
  if (!headers.signature || !headers.timestamp) return { ok: false, reason: 'signature_missing' };
  if (!/^\d{1,12}$/.test(headers.timestamp)) return { ok: false, reason: 'timestamp_invalid' };
  const timestamp = Number(headers.timestamp);
  if (Math.abs(nowSeconds - timestamp) > DDA_SIGNATURE_TOLERANCE_SECONDS)
    return { ok: false, reason: 'timestamp_out_of_tolerance' };
  const expected = Buffer.from(signDdaWebhook(secret, timestamp, rawBody), 'utf8');
  const presented = Buffer.from(headers.signature.trim(), 'utf8');
  if (expected.length !== presented.length || !timingSafeEqual(expected, presented))
    return { ok: false, reason: 'signature_mismatch' };
  return { ok: true };
}
