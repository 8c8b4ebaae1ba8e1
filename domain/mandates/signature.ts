// Mandate signatures: HMAC-SHA256 over the RFC 8785 canonical form, written as 64 lowercase hex
// characters, and compared in constant time.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalize } from '../canonical-json';

export const SIGNATURE_PATTERN = /^[0-9a-f]{64}$/;

export function signCanonical(secret: Buffer, canonical: string): string {
  return createHmac('sha256', secret).update(canonical, 'utf8').digest('hex');
}

export function signDocument(secret: Buffer, document: unknown): { canonical: string; signature: string } {
  const canonical = canonicalize(document);
  return { canonical, signature: signCanonical(secret, canonical) };
}

/** Constant-time check of a presented signature; anything that is not 64 hex characters fails. */
export function signatureMatches(secret: Buffer, canonical: string, presented: string): boolean {
  const normalized = presented.toLowerCase();
  if (!SIGNATURE_PATTERN.test(normalized)) return false;
  const expected = Buffer.from(signCanonical(secret, canonical), 'hex');
  return timingSafeEqual(expected, Buffer.from(normalized, 'hex'));
}
