// PKCE (RFC 7636) with S256 only: the challenge is BASE64URL(SHA-256(verifier)) without padding.
import { createHash, timingSafeEqual } from 'node:crypto';

/** A S256 challenge is the unpadded base64url of 32 bytes: exactly 43 characters. */
export function isS256Challenge(value: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(value);
}

/** RFC 7636 4.1: 43 to 128 unreserved characters. */
export function isCodeVerifier(value: string): boolean {
  return /^[A-Za-z0-9._~-]{43,128}$/.test(value);
}

export function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

export function verifyS256(verifier: string, challenge: string): boolean {
  if (!isCodeVerifier(verifier) || !isS256Challenge(challenge)) return false;
  return timingSafeEqual(Buffer.from(s256Challenge(verifier)), Buffer.from(challenge));
}
