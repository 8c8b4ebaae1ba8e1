// Reads request bodies with a size cap and parses JSON or form encoding. Routes say which encodings
// they take; anything else is 415, an oversized body 413, unparsable JSON 400, all in the envelope.
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
  return new ApiError(413, 'payload_too_large', `Request body exceeds ${limit} bytes`, { limit_bytes: limit });
}

function hasBody(ctx: Koa.Context): boolean {
  return Number(ctx.get('Content-Length') || 0) > 0 || ctx.get('Transfer-Encoding') !== '';
}

/** Parses the body for one route; an absent body is `undefined`, which the schema then judges. */
export async function parseBody(ctx: Koa.Context, accepted: BodyType[], limit: number): Promise<unknown> {
  if (!hasBody(ctx)) return undefined;
  const type: BodyType | undefined =
    typeof ctx.is('application/json', 'application/*+json') === 'string'
      ? 'json'
      : typeof ctx.is('application/x-www-form-urlencoded') === 'string'
        ? 'form'
        : undefined;
  if (!type || !accepted.includes(type)) {
    const expected = accepted.map((t) => (t === 'json' ? 'application/json' : 'application/x-www-form-urlencoded')).join(' or ');
    throw new ApiError(415, 'unsupported_media_type', `Content-Type must be ${expected}`, { content_type: ctx.get('Content-Type') || null });
  }
  const raw = await readRaw(ctx, limit);
  if (raw.length === 0) return undefined;
  const text = raw.toString('utf8');
  if (type === 'form') return Object.fromEntries(new URLSearchParams(text));
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError(400, 'invalid_json', 'Request body is not valid JSON');
  }
}
