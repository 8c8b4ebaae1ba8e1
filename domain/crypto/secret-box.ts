// Encryption at rest for provider credentials, webhook signing secrets and other recoverable secrets:
// AES-256-GCM under a versioned key, so keys rotate without re-encrypting everything at once.
// Stored form: `v<version>.<iv>.<tag>.<ciphertext>` (base64url parts).
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

export interface KeyRing {
  current: number;
  keys: Map<number, Buffer>;
}

/** Parses `1:<base64 32 bytes>,2:<base64 32 bytes>`; the highest version encrypts, all decrypt. */
export function parseKeyRing(spec: string): KeyRing {
  const keys = new Map<number, Buffer>();
  for (const part of spec
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const match = /^(\d+):(.+)$/.exec(part);
    if (!match) throw new Error('encryption keys must look like "1:<base64>,2:<base64>"');
    const key = Buffer.from(match[2], 'base64');
    if (key.length !== 32) throw new Error(`encryption key version ${match[1]} must be 32 bytes of base64`);
    keys.set(Number(match[1]), key);
  }
  if (keys.size === 0) throw new Error('at least one encryption key is required');
  return { current: Math.max(...keys.keys()), keys };
}

/** A fixed key for local development and tests only; production sets GATEWAY_ENCRYPTION_KEYS. */
export function developmentKeyRing(): KeyRing {
  return {
    current: 1,
    keys: new Map([[1, createHash('sha256').update('gateway-development-key').digest()]]),
  };
}

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
