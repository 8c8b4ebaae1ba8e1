// tools/list answers on the current protocol, kept as the bytes the SDK wrote the first time and served
// again with the request's own id. An answer depends on nothing but the request (its body without the id,
// and the headers the transport reads) and the session's listed tools, so the cache key is exactly those:
// catalog and built-in servers by id (their tools are fixed for the life of the process), tenant tool
// servers and generated servers by a digest of their listed form, read again on every request. A server
// re-registered or archived is then another key, and nothing needs invalidating. What the SDK would refuse
// or answer otherwise than with a result is never kept.
import { createHash } from 'node:crypto';

interface Kept {
  status: number;
  headers: [string, string][];
  /** The answer's bytes before and after its id. */
  head: string;
  tail: string;
}

/** The request headers the transport's validation ladder and answer read. */
const READ_HEADERS = ['accept', 'content-type'];

/** Bounded: a process serves few distinct tool sets, and a request shape outside the usual is not worth more. */
const MAX_KEPT = 128;

type RequestId = string | number;

function listRequestId(body: unknown): RequestId | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { method, id } = body as { method?: unknown; id?: unknown };
  if (method !== 'tools/list') return undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

function requestKey(request: Request, body: object): string {
  const headers: string[] = [];
  request.headers.forEach((value, name) => {
    if (READ_HEADERS.includes(name) || name.startsWith('mcp-')) headers.push(`${name}:${value}`);
  });
  return `${request.method}\n${headers.join('\n')}\n${JSON.stringify({ ...body, id: undefined })}`;
}

export interface ListAnswers {
  /** The answer to `request`: kept bytes when its like was answered before, else `serve()`'s (kept if a result). */
  answer(
    request: Request,
    body: unknown,
    tools: () => Promise<string>,
    serve: () => Promise<Response>,
  ): Promise<Response>;
}

/** `tools()` answers what the session lists, as a key: the same key for the same listed tools. */
export function listAnswers(): ListAnswers {
  const kept = new Map<string, Kept>();
  return {
    async answer(request, body, tools, serve) {
      const id = listRequestId(body);
      if (id === undefined || request.method !== 'POST') return serve();
      const key = createHash('sha256')
        .update(requestKey(request, body as object))
        .update('\n')
        .update(await tools())
        .digest('base64');
      const hit = kept.get(key);
      if (hit)
        return new Response(`${hit.head}${JSON.stringify(id)}${hit.tail}`, {
          status: hit.status,
          headers: hit.headers,
        });
      const response = await serve();
      if (response.status !== 200 || !response.headers.get('content-type')?.startsWith('application/json'))
        return response;
      const text = await response.text();
      const headers: [string, string][] = [];
      response.headers.forEach((value, name) => headers.push([name, value]));
      // Kept only when the id is where JSON-RPC's serialization puts it last, and the answer is a result.
      const idTail = `${JSON.stringify(id)}}`;
      const parsed = JSON.parse(text) as { result?: unknown; id?: unknown };
      if (parsed.result !== undefined && parsed.id === id && text.endsWith(`"id":${idTail}`)) {
        if (kept.size >= MAX_KEPT) kept.delete(kept.keys().next().value!);
        kept.set(key, { status: 200, headers, head: text.slice(0, -idTail.length), tail: '}' });
      }
      return new Response(text, { status: response.status, headers });
    },
  };
}
