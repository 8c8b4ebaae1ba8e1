// API key values: `csk_live_` or `csk_test_` plus 32 random characters (41 in all), stored only as a peppered hash.
import { createHmac, createSecretKey, hash, type KeyObject } from 'node:crypto';
import type { Environment } from '../../contracts/environment';
import { randomToken } from '../ids';

export type { Environment };
const KEY_PATTERN = /^csk_(live|test)_[0-9A-Za-z]{32}$/;

export function generateApiKey(environment: Environment): string {
  return `csk_${environment}_${randomToken(32)}`;
}

/** The environment a well-formed key claims, or undefined for anything that is not a key. */
export function keyEnvironment(value: string): Environment | undefined {
  const match = KEY_PATTERN.exec(value);
  return match ? (match[1] as Environment) : undefined;
}

// The pepper imported once as a key object: importing it anew made every request pay for it.
let imported: { pepper: string; key: KeyObject } | undefined;

// Stored hashes already computed, by a one-shot digest of pepper and key (several times cheaper than an HMAC
// object), so a key seen again pays for that digest only. A pure function's memo: nothing to invalidate, and
// no key is held, only digests of it. Bounded, cleared when full.
const computed = new Map<string, string>();
const MAX_COMPUTED = 10_000;

export function hashApiKey(value: string, pepper: string): string {
  const seen = hash('sha256', `${pepper.length}:${pepper}${value}`, 'base64');
  const known = computed.get(seen);
  if (known !== undefined) return known;
  if (imported?.pepper !== pepper) imported = { pepper, key: createSecretKey(Buffer.from(pepper, 'utf8')) };
  const stored = createHmac('sha256', imported.key).update(value).digest('hex');
  if (computed.size >= MAX_COMPUTED) computed.clear();
  computed.set(seen, stored);
  return stored;
}

/** What may be shown about a key after creation: its prefix and last four characters. */
export function keyHint(value: string): string {
  return `${value.slice(0, 9)}...${value.slice(-4)}`;
}
