// RFC 8785 JSON Canonicalization Scheme, the one canonical JSON of the gateway: the byte sequence a
// mandate is signed over, a receipt chain links, and a request fingerprint hashes, whatever the key order
// or number spelling a client used. Keys sort by UTF-16 code units; numbers use the
// ECMAScript shortest round-trip form; strings use ECMAScript escaping and must be well-formed Unicode.

export class CanonicalizationError extends Error {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(`${message} at ${path || '/'}`);
    this.name = 'CanonicalizationError';
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function serializeString(value: string, path: string): string {
  // I-JSON (RFC 7493) forbids lone surrogates; JSON.stringify would escape them and sign garbage.
  if (LONE_SURROGATE.test(value)) throw new CanonicalizationError('string holds a lone surrogate', path);
  return JSON.stringify(value); // ECMAScript escaping is exactly RFC 8785 section 3.2.2.2
}

function serializeNumber(value: number, path: string): string {
  if (!Number.isFinite(value)) throw new CanonicalizationError('number is not finite', path);
  return Object.is(value, -0) ? '0' : JSON.stringify(value); // Number::toString, RFC 8785 section 3.2.2.3
}

/** Compares by UTF-16 code units, which is what Array.prototype.sort does by default (spelled out for clarity). */
export function compareUtf16(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const diff = a.charCodeAt(i) - b.charCodeAt(i);
    if (diff !== 0) return diff;
  }
  return a.length - b.length;
}

function serialize(value: unknown, path: string, seen: Set<object>): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      return serializeNumber(value, path);
    case 'string':
      return serializeString(value, path);
    case 'object':
      break;
    default:
      throw new CanonicalizationError(`${typeof value} is not JSON`, path);
  }
  const object = value as object;
  if (seen.has(object)) throw new CanonicalizationError('value is cyclic', path);
  seen.add(object);
  try {
    if (Array.isArray(object)) {
      return `[${object
        .map((item, index) => {
          if (item === undefined)
            throw new CanonicalizationError('array holds undefined', `${path}/${index}`);
          return serialize(item, `${path}/${index}`, seen);
        })
        .join(',')}]`;
    }
    const prototype = Object.getPrototypeOf(object);
    if (prototype !== Object.prototype && prototype !== null) {
      throw new CanonicalizationError('only plain objects are JSON objects', path);
    }
    const record = object as Record<string, unknown>;
    // Members whose value is undefined are absent, as in JSON.stringify.
    const keys = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort(compareUtf16);
    return `{${keys.map((key) => `${serializeString(key, `${path}/${key}`)}:${serialize(record[key], `${path}/${key}`, seen)}`).join(',')}}`;
  } finally {
    seen.delete(object);
  }
}

/** The RFC 8785 canonical form of a JSON value. Throws CanonicalizationError for anything that is not I-JSON. */
export function canonicalize(value: unknown): string {
  return serialize(value, '', new Set());
}
