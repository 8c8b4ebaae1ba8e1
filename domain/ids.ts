// Identifier builders: the spec's prefixed random ids (`prj_` + 16 chars) and time-sortable ulids elsewhere.
import { randomBytes } from 'node:crypto';
import { encodeTime } from 'ulid';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform random string over [0-9A-Za-z]; rejection sampling keeps every character equally likely. */
export function randomToken(length: number, alphabet = ALPHABET): string {
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= limit) continue;
      out += alphabet[byte % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A nanoid-style id: prefix plus `length` url-safe random characters. */
export function prefixedId(prefix: string, length = 16): string {
  return `${prefix}_${randomToken(length)}`;
}

// ulid's default generator draws one crypto.randomBytes call per character (~70 µs per id, too much on
// the request path): the random part is read from a pooled buffer of the same cryptographic randomness,
// five bits a byte.
const POOL_SIZE = 4096;
const RANDOM_CHARS = 16;
let pool = randomBytes(POOL_SIZE);
let offset = 0;
// Crockford's base 32, as ulid encodes it, in lower case.
const BASE32 = '0123456789abcdefghjkmnpqrstvwxyz';

function randomPart(): string {
  if (offset + RANDOM_CHARS > POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    offset = 0;
  }
  let out = '';
  for (let i = 0; i < RANDOM_CHARS; i++) out += BASE32[pool[offset++] >> 3];
  return out;
}

// The time part changes once a millisecond and ids come many a millisecond under load: encoded once for each.
let encodedAt = -1;
let encodedTime = '';

export function ulid(): string {
  const now = Date.now();
  if (now !== encodedAt) {
    encodedAt = now;
    encodedTime = encodeTime(now, 10).toLowerCase();
  }
  return encodedTime + randomPart();
}

/** A time-sortable id for rows the spec gives no format: prefix plus a lower-case ulid. */
export function sortableId(prefix: string): string {
  return `${prefix}_${ulid()}`;
}
