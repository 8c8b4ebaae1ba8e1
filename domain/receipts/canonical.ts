// RFC 8785 (JSON Canonicalization Scheme) for receipt content: object members sorted by UTF-16 code
// units, no whitespace, ECMAScript number and string serialization. Receipts carry money as decimal
// strings, so the only numbers here are small integers and JCS reduces to JSON.stringify for them.

export class CanonicalizationError extends Error {}

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new CanonicalizationError('non-finite numbers have no JSON form');
    return JSON.stringify(value);
  }
  if (typeof value === 'bigint') throw new CanonicalizationError('bigints must travel as decimal strings');
  if (Array.isArray(value))
    return `[${value.map((item) => canonicalJson(item === undefined ? null : item)).join(',')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    // Default sort compares UTF-16 code units, which is exactly what RFC 8785 asks for.
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  throw new CanonicalizationError(`${typeof value} has no JSON form`);
}
