// How the KYC provider signs its status webhooks: HMAC-SHA256 with the shared webhook secret over
// `<timestamp>.<raw body>`, hex, sent as `X-KYC-Signature: v1=<hex>` beside `X-KYC-Timestamp: <unix
// seconds>`. The timestamp is signed, so a captured webhook is refused once it falls outside the
// tolerance; inside it, the body's event id (kept in kyc_webhook_receipts) refuses a replay.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const KYC_SIGNATURE_HEADER = 'x-kyc-signature';
export const KYC_TIMESTAMP_HEADER = 'x-kyc-timestamp';
/** How far a webhook's timestamp may be from the receiver's clock. */
export const KYC_SIGNATURE_TOLERANCE_SECONDS = 300;

export function signKycWebhook(secret: string, timestamp: number, rawBody: string | Buffer): string {
  const mac = createHmac('sha256', secret);
  mac.update(`${timestamp}.`);
  mac.update(rawBody);
  return `v1=${mac.digest('hex')}`;
}

export type KycSignatureCheck = { ok: true } | { ok: false; reason: string };

/** Checks a webhook's signature and timestamp in constant time; `nowSeconds` is the receiver's clock. */
export function verifyKycWebhook(
  secret: string,
  headers: { signature: string | undefined; timestamp: string | undefined },
  rawBody: Buffer,
  nowSeconds: number,
): KycSignatureCheck {
  if (!headers.signature || !headers.timestamp) return { ok: false, reason: 'signature_missing' };
  if (!/^\d{1,12}$/.test(headers.timestamp)) return { ok: false, reason: 'timestamp_invalid' };
  const timestamp = Number(headers.timestamp);
  if (Math.abs(nowSeconds - timestamp) > KYC_SIGNATURE_TOLERANCE_SECONDS)
    return { ok: false, reason: 'timestamp_out_of_tolerance' };
  const expected = Buffer.from(signKycWebhook(secret, timestamp, rawBody), 'utf8');
  const presented = Buffer.from(headers.signature.trim(), 'utf8');
  if (expected.length !== presented.length || !timingSafeEqual(expected, presented))
    return { ok: false, reason: 'signature_mismatch' };
  return { ok: true };
}
