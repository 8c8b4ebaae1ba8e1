// JSON with exact integers: bigints are written as JSON number literals digit for digit, for the few
// fields the spec types as integers (the wallet roll-up), where a float could lose cents.
import { randomBytes } from 'node:crypto';

export function jsonWithIntegers(value: unknown): string {
  const marker = `__int_${randomBytes(6).toString('hex')}__`;
  const text = JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? `${marker}${v.toString()}` : v));
  return text.replace(new RegExp(`"${marker}(-?[0-9]+)"`, 'g'), '$1');
}
