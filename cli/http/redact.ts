// What `--verbose` may show: every header and JSON field that carries a credential is replaced, so a
// pasted transcript never leaks a key, token or signing secret.
const SECRET_HEADERS = new Set(['authorization', 'cookie', 'set-cookie', 'x-api-key', 'proxy-authorization']);
const SECRET_KEYS =
  /(^|_)(api_key|key|token|access_token|refresh_token|secret|signing_secret|password|code_verifier|authorization)$/i;

export const REDACTED = '[redacted]';

export function redactHeaders(headers: Headers): string[] {
  const lines: string[] = [];
  headers.forEach((value, name) =>
    lines.push(`${name}: ${SECRET_HEADERS.has(name.toLowerCase()) ? REDACTED : value}`),
  );
  return lines;
}

function redactValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactValue);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        SECRET_KEYS.test(k) && typeof v === 'string' ? REDACTED : redactValue(v),
      ]),
    );
  }
  // A bare credential in a string (a key pasted as a value) is caught by its prefix.
  if (typeof value === 'string' && /^(csk_(live|test)_|cso_[a-z]+_|whsec_)/.test(value)) return REDACTED;
  return value;
}

/** Redacts a JSON body; a body that is not JSON is shown only by its size. */
export function redactBody(text: string): string {
  if (!text) return '';
  try {
    return JSON.stringify(redactValue(JSON.parse(text)));
  } catch {
    return `(${Buffer.byteLength(text)} bytes, not JSON)`;
  }
}
