// Reads request bodies with a size cap and parses JSON or form encoding. Routes say which encodings
// they take; anything else is 415, an oversized body 413, unparsable or too deeply nested JSON 400,
// all in the envelope.
import type Koa from 'koa';
import { ApiError } from '../../domain/errors';

export type BodyType = 'json' | 'form';

async function readRaw(ctx: Koa.Context, limit: number): Promise<Buffer> {
  const declared = Number(ctx.get('Content-Length') || 0);
  if (declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function tooLarge(limit: number): ApiError {
  return new ApiError(413, 'payload_too_large', `Request body exceeds ${limit} bytes`, {
    limit_bytes: limit,
  });
}

/** Deeper than any document the API takes; a deeper one would only exhaust the validator's or PostgreSQL's stack. */
export const MAX_JSON_DEPTH = 64;

/** Nesting depth of JSON text, counted on the raw text so a hostile document is refused before it is parsed. */
function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character, quotes included
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > deepest) deepest = depth;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return deepest;
}

function hasBody(ctx: Koa.Context): boolean {
  return Number(ctx.get('Content-Length') || 0) > 0 || ctx.get('Transfer-Encoding') !== '';
}

/** A body's bytes as read, with the encoding its Content-Type names. */
export interface RawBody {
  type: BodyType;
  raw: Buffer;
}

/** Parses the body for one route; an absent body is `undefined`, which the schema then judges. */
export async function parseBody(ctx: Koa.Context, accepted: BodyType[], limit: number): Promise<unknown> {
  return decodeBody(await readBody(ctx, accepted, limit));
}

/** Reads the body's bytes for one route, refusing an encoding it does not take or a body over the limit. */
export async function readBody(
  ctx: Koa.Context,
  accepted: BodyType[],
  limit: number,
): Promise<RawBody | undefined> {
  if (!hasBody(ctx)) return undefined;
  const type: BodyType | undefined =
    typeof ctx.is('application/json', 'application/*+json') === 'string'
      ? 'json'
      : typeof ctx.is('application/x-www-form-urlencoded') === 'string'
        ? 'form'
        : undefined;
  if (!type || !accepted.includes(type)) {
    const expected = accepted
      .map((t) => (t === 'json' ? 'application/json' : 'application/x-www-form-urlencoded'))
      .join(' or ');
    throw new ApiError(415, 'unsupported_media_type', `Content-Type must be ${expected}`, {
      content_type: ctx.get('Content-Type') || null,
    });
  }
  const raw = await readRaw(ctx, limit);
  // Kept for routes that check a signature over the exact bytes (provider webhooks).
  ctx.state.rawBody = raw;
  return { type, raw };
}

/** The body's value: JSON (refused when unparsable or too deeply nested) or form fields. */
export function decodeBody(body: RawBody | undefined): unknown {
  if (body === undefined || body.raw.length === 0) return undefined;
  const text = body.raw.toString('utf8');
  if (body.type === 'form') return Object.fromEntries(new URLSearchParams(text));
  if (jsonDepth(text) > MAX_JSON_DEPTH) {
    throw new ApiError(400, 'invalid_body', `Request body nests deeper than ${MAX_JSON_DEPTH} levels`, {
      max_depth: MAX_JSON_DEPTH,
      issues: [{ path: '/', message: `nests deeper than ${MAX_JSON_DEPTH} levels`, keyword: 'maxDepth' }],
    });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError(400, 'invalid_json', 'Request body is not valid JSON');
  }
}
