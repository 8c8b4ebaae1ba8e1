// Consent tokens: `ctk_` plus 40 random base62 characters (about 238 bits), one-shot, 24 hours.
// Only the SHA-256 digest is stored and used as the workflow key, so neither the database nor the
// Temporal UI ever holds a usable token.
import { createHash } from 'node:crypto';
import { randomToken } from '../ids';

export const CONSENT_TOKEN_TTL_SECONDS = 24 * 60 * 60;
export const CONSENT_TOKEN_PATTERN = /^ctk_[0-9A-Za-z]{40}$/;

export function generateConsentToken(): string {
  return `ctk_${randomToken(40)}`;
}

export function tokenDigest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function consentTokenHint(token: string): string {
  return `ctk_…${token.slice(-4)}`;
}

/** Well-formed tokens only: anything else is refused before touching the database. */
export function isConsentToken(value: string): boolean {
  return CONSENT_TOKEN_PATTERN.test(value);
}
