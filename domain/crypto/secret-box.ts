// Encryption at rest for provider credentials, webhook signing secrets and other recoverable secrets:
// AES-256-GCM under a versioned key, so keys rotate without re-encrypting everything at once.
// Stored form: `v<version>.<iv>.<tag>.<ciphertext>` (base64url parts).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { KeyRing } from '../../runtime/key-ring';

export type { KeyRing };

export function seal(ring: KeyRing, plaintext: string, associatedData = ''): string {
  const key = ring.keys.get(ring.current)!;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(associatedData));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [
    `v${ring.current}`,
    iv.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
    ciphertext.toString('base64url'),
  ].join('.');
}

export function open(ring: KeyRing, sealed: string, associatedData = ''): string {
  const [version, iv, tag, ciphertext] = sealed.split('.');
  const key = ring.keys.get(Number(version?.slice(1)));
  if (!key || !iv || !tag || ciphertext === undefined)
    throw new Error('sealed secret is malformed or its key version is unknown');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(associatedData));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString(
    'utf8',
  );
}

/** The key version a sealed value was written under, to find rows due for re-encryption. */
export function sealedVersion(sealed: string): number {
  return Number(sealed.split('.')[0]?.slice(1));
}
