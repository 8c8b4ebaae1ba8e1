// tools/list answers on the current protocol, kept as the bytes the SDK wrote the first time and served
// again with the request's own id (before any web request is made: only a current-protocol request earns
// a kept answer, and the key holds all that makes one so). An answer depends on nothing but the request
// (its body without the id, and the headers the transport reads) and the session's listed tools, so the cache key is exactly those:
// catalog and built-in servers by id (their tools are fixed for the life of the process), tenant tool
// servers and generated servers by a digest of their listed form, read again on every request. A server
// re-registered or archived is then another key, and nothing needs invalidating. What the SDK would refuse
// or answer otherwise than with a result is never kept.
import { createHash } from 'node:crypto';
import { shapeHeaders, type Incoming, type McpAnswer, type WholeAnswer } from './whole-answer';

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

function requestKey(incoming: Incoming, body: object): string {
  return `${incoming.method}\n${shapeHeaders(incoming, READ_HEADERS)}${JSON.stringify({ ...body, id: undefined })}`;
}

/** A tools/list request as the kept answers know it: its key, and its own id to answer with. */
export interface ListRequest {
  key: string;
  id: RequestId;
}

export interface ListAnswers {
  /** The request's key when `body` is a tools/list; `tools()` answers what the session lists, as a key. */
  key(incoming: Incoming, body: unknown, tools: () => Promise<string>): Promise<ListRequest | undefined>;
  /** The kept answer to a request of this key, with the request's own id. */
  kept(request: ListRequest): WholeAnswer | undefined;
  /** `response` answered to the request, kept when it is a result. */
  keep(request: ListRequest, response: Response): Promise<McpAnswer>;
}

/** Kept answers; the same listed tools give the same key. */
export function listAnswers(): ListAnswers {
  const kept = new Map<string, Kept>();
  return {
    async key(incoming, body, tools) {
      const id = listRequestId(body);
      if (id === undefined || incoming.method !== 'POST') return undefined;
      const key = createHash('sha256')
        .update(requestKey(incoming, body as object))
        .update('\n')
        .update(await tools())
        .digest('base64');
      return { key, id };
    },
    kept({ key, id }) {
      const hit = kept.get(key);
      return (
        hit && {
          status: hit.status,
          headers: hit.headers,
          body: `${hit.head}${JSON.stringify(id)}${hit.tail}`,
        }
      );
    },
    async keep({ key, id }, response) {
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
      return { status: response.status, headers, body: text };
    },
  };
}
