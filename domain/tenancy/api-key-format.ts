// API key values: `csk_live_` or `csk_test_` plus 32 random characters (41 in all), stored only as a peppered hash.
import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
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

export function hashApiKey(value: string, pepper: string): string {
  if (imported?.pepper !== pepper) imported = { pepper, key: createSecretKey(Buffer.from(pepper, 'utf8')) };
  return createHmac('sha256', imported.key).update(value).digest('hex');
}

/** What may be shown about a key after creation: its prefix and last four characters. */
export function keyHint(value: string): string {
  return `${value.slice(0, 9)}...${value.slice(-4)}`;
}
