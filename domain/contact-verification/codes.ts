// One-time codes. A code is derived from the verification id under a versioned server key, so a retried
// send produces the same code without the code ever being stored or passed through workflow history;
// only a keyed hash of it is kept for the check.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { KeyRing } from '../crypto/secret-box';

export function deriveCode(
  ring: KeyRing,
  keyVersion: number,
  verificationId: string,
  length: number,
): string {
  const key = ring.keys.get(keyVersion);
  if (!key) throw new Error(`code key version ${keyVersion} is not in the key ring`);
  const digest = createHmac('sha256', key).update(`contact-code:${verificationId}`).digest();
  // 256 bits reduced modulo 10^length: the bias is far below one in 10^60.
  const value = BigInt(`0x${digest.toString('hex')}`) % 10n ** BigInt(length);
  return value.toString().padStart(length, '0');
}

export function hashCode(pepper: string, verificationId: string, code: string): string {
  return createHmac('sha256', pepper).update(`contact-code:${verificationId}:${code}`).digest('hex');
}

export function codeMatches(
  pepper: string,
  verificationId: string,
  code: string,
  storedHash: string,
): boolean {
  return timingSafeEqual(
    Buffer.from(hashCode(pepper, verificationId, code), 'hex'),
    Buffer.from(storedHash, 'hex'),
  );
}

/** Associated data for a target or code sealed into workflow input: it only opens for its own verification. */
export function sealContactSecret(kind: 'target' | 'code', verificationId: string): string {
  return `contact-${kind}:${verificationId}`;
}
