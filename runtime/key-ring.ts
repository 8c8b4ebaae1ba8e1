// The versioned keys of the secret box, as configuration gives them (GATEWAY_ENCRYPTION_KEYS): the
// highest version encrypts, every version decrypts, so keys rotate without re-encrypting at once.
import { createHash } from 'node:crypto';

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
