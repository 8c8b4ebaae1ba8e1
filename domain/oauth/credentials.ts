// OAuth credential values: authorization codes, access tokens and refresh tokens are prefixed random
// strings (`cso_ac_`, `cso_at_`, `cso_rt_` plus 43 base62 characters, about 256 bits), stored only as
// the SHA-256 of the value. The values carry that much entropy, so an unsalted hash is enough to make
// a stolen table useless, and a lookup stays one index probe.
import { createHash } from 'node:crypto';
import { randomToken } from '../ids';

export type CredentialKind = 'authorization_code' | 'access_token' | 'refresh_token';

const PREFIXES: Record<CredentialKind, string> = {
  authorization_code: 'cso_ac_',
  access_token: 'cso_at_',
  refresh_token: 'cso_rt_',
};
const RANDOM_LENGTH = 43;
const PATTERNS: Record<CredentialKind, RegExp> = {
  authorization_code: /^cso_ac_[0-9A-Za-z]{43}$/,
  access_token: /^cso_at_[0-9A-Za-z]{43}$/,
  refresh_token: /^cso_rt_[0-9A-Za-z]{43}$/,
};

/** Lifetimes the spec leaves open, chosen as the major providers do. */
export const LIFETIME_SECONDS = {
  authorization_code: 60,
  access_token: 60 * 60,
  refresh_token: 30 * 24 * 60 * 60, // from the last rotation: an idle client must re-authorize after 30 days
} as const satisfies Record<CredentialKind, number>;

export function mintCredential(kind: CredentialKind): string {
  return `${PREFIXES[kind]}${randomToken(RANDOM_LENGTH)}`;
}

/** Whether a value is shaped like a credential of this kind; anything else is refused before any lookup. */
export function isCredentialOf(kind: CredentialKind, value: string): boolean {
  return PATTERNS[kind].test(value);
}

export function hashCredential(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}
