// A generated server's tool call as the HTTP request its OpenAPI operation describes: path parameters
// filled in (each one segment: `/`, `.` and `..` cannot move the path), query parameters (arrays
// repeated, objects as JSON text), header parameters, and the `body` argument as JSON, a form or text.
import { ApiError } from '../../domain/errors';
import type { GeneratedOperation } from '../../domain/generated-servers/operations';

const text = (value: unknown): string =>
  typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);

/** One path segment: percent-encoded, and never a dot segment the URL parser would resolve. */
function segment(value: unknown): string {
  const encoded = encodeURIComponent(text(value));
  return encoded === '.' || encoded === '..' ? encoded.replace(/\./g, '%2E') : encoded;
}

function encodeBody(
  body: NonNullable<GeneratedOperation['body']>,
  value: unknown,
): { bytes: Buffer; contentType: string } {
  if (body.encoding === 'json')
    return { bytes: Buffer.from(JSON.stringify(value)), contentType: body.contentType };
  if (body.encoding === 'form' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const form = new URLSearchParams();
    for (const [name, inner] of Object.entries(value as Record<string, unknown>))
      for (const one of Array.isArray(inner) ? inner : [inner]) form.append(name, text(one));
    return { bytes: Buffer.from(form.toString()), contentType: body.contentType };
  }
  return { bytes: Buffer.from(text(value)), contentType: body.contentType };
}

/** A header argument HTTP can carry: no line breaks or other control characters. */
function headerValue(arg: string, value: unknown): string {
  const out = text(value);
  if (/[^\t\x20-\x7e\x80-\xff]/.test(out))
    throw new ApiError(
      400,
      'invalid_body',
      `The argument ${arg} is sent as a header and cannot hold control characters`,
      {
        issues: [
          { path: `/arguments/${arg}`, message: 'holds characters a header cannot carry', keyword: 'header' },
        ],
      },
    );
  return out;
}

export function generatedRequest(
  operation: GeneratedOperation,
  args: Record<string, unknown>,
): { method: string; path: string; headers: Record<string, string>; body: Buffer } {
  let path = operation.path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = { accept: 'application/json' };
  for (const param of operation.params) {
    const value = args[param.arg];
    if (value === undefined || value === null) continue;
    if (param.in === 'path') path = path.split(`{${param.name}}`).join(segment(value));
    else if (param.in === 'query')
      for (const one of Array.isArray(value) ? value : [value]) query.append(param.name, text(one));
    else if (param.in === 'header') headers[param.name.toLowerCase()] = headerValue(param.arg, value);
  }
  let body: Buffer = Buffer.alloc(0);
  if (operation.body && args.body !== undefined) {
    const encoded = encodeBody(operation.body, args.body);
    body = encoded.bytes;
    headers['content-type'] = encoded.contentType;
  }
  const search = query.toString();
  return { method: operation.method, path: search ? `${path}?${search}` : path, headers, body };
}
