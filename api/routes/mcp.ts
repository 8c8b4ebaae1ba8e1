// The hosted MCP endpoint: POST, GET and DELETE on `/v1/sessions/{id}/mcp` and `/mcp` (which opens or
// resumes the credential's own MCP session on every server the project can open). Authentication and the
// `tools:execute` scope are the router's (401 carries the RFC 9728 resource_metadata challenge and that
// scope: it is all the endpoint needs, `/mcp`'s own session and every tool included); Host and
// Origin are checked next, then the SDK's transport answers on the raw response (`ctx.respond = false`).
import {
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
} from '@modelcontextprotocol/server';
import type Koa from 'koa';
import { withinSessionQuota } from '../../domain/sessions/limits';
import {
  createSession,
  findOpenSessionOfKey,
  getSessionForCall,
  getSessionNow,
  requireActive,
  type SessionRow,
} from '../../domain/sessions/sessions';
import { openableServers } from '../../domain/tools/servers';
import { Unauthorized } from '../../schema/http/common';
import { SessionParams } from '../../schema/http/sessions';
import type { JsonSchema } from '../../schema/http/json-schema';
import type { AppDeps } from '../deps';
import { authInfoFor } from '../mcp/server';
import { mcpEndpoint, type McpEndpoint } from '../mcp/transport';
import type { Incoming, McpAnswer } from '../mcp/whole-answer';
import type { Principal } from '../principal';
import { publicOrigin } from '../public-origin';
import { route, type AnyRoute, type HttpMethod } from '../route';

const endpoints = new WeakMap<AppDeps, McpEndpoint>();
function endpointOf(deps: AppDeps): McpEndpoint {
  let endpoint = endpoints.get(deps);
  if (!endpoint) {
    endpoint = mcpEndpoint(deps);
    endpoints.set(deps, endpoint);
  }
  return endpoint;
}

/** DNS-rebinding protection: the public host when one is configured, else loopback names (and the bind address). */
function allowedHosts(deps: AppDeps): { hosts: string[]; origins: string[] } {
  if (deps.config.publicBaseUrl) {
    const host = new URL(deps.config.publicBaseUrl).hostname;
    return { hosts: [host], origins: [host] };
  }
  const bound = ['0.0.0.0', '::', ''].includes(deps.config.host) ? [] : [deps.config.host];
  return {
    hosts: [...localhostAllowedHostnames(), ...bound],
    origins: [...localhostAllowedOrigins(), ...bound],
  };
}

/** `/mcp` without an id: the credential's open MCP session, or a new one on every openable server. */
async function resumeOrOpen(deps: AppDeps, principal: Principal): Promise<SessionRow> {
  const open = await findOpenSessionOfKey(deps.db, principal);
  if (open) return open;
  const servers = (await openableServers(deps.db, principal)).map((s) => s.id);
  return withinSessionQuota(deps.db, principal.orgId, principal.projectId, (tx) =>
    createSession(tx, principal, { servers, agentId: null, metadata: { opened_by: 'mcp' } }),
  );
}

const isToolCall = (body: unknown): boolean =>
  typeof body === 'object' && body !== null && (body as { method?: unknown }).method === 'tools/call';

async function pipe(ctx: Koa.Context, response: McpAnswer): Promise<void> {
  ctx.respond = false;
  const res = ctx.res;
  const headers: Record<string, string> = { 'x-request-id': String(ctx.state.requestId) };
  // An answer made whole here (a kept tools/list, an accepted tools/call) leaves as it is, in one write.
  if (!(response instanceof Response)) {
    for (const [name, value] of response.headers) headers[name] = value;
    res.writeHead(response.status, {
      ...headers,
      'content-length': String(Buffer.byteLength(response.body)),
    });
    res.end(response.body);
    return;
  }
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  // A JSON answer (every tools/call and tools/list on the current protocol) is whole already: status,
  // headers and body leave in one write.
  if (!response.body || !headers['content-type']?.startsWith('text/event-stream')) {
    const body = response.body ? Buffer.from(await response.arrayBuffer()) : undefined;
    res.writeHead(response.status, { ...headers, 'content-length': String(body?.length ?? 0) });
    res.end(body);
    return;
  }
  res.writeHead(response.status, headers);
  // Status and headers go out now: a stream (GET's server-to-client SSE) may carry no event for a long
  // time, and clients and proxies that wait for the headers would hang until the first one.
  res.flushHeaders();
  const reader = response.body.getReader();
  const closed = new Promise<void>((resolve) => res.once('close', resolve));
  void closed.then(() => reader.cancel().catch(() => undefined));
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!res.write(value)) await Promise.race([new Promise((resolve) => res.once('drain', resolve)), closed]);
    if (res.destroyed) break;
  }
  res.end();
}

/**
 * The request as the SDK's web-standard handlers take it. Its body is never read: the route has parsed it
 * and hands it over as `parsedBody`, so it is not serialized again into a stream nobody drains.
 */
function webRequest(ctx: Koa.Context): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(ctx.req.headers)) {
    if (value === undefined || name.startsWith(':') || BODY_HEADERS.has(name)) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  return new Request(`http://${ctx.req.headers.host ?? 'localhost'}${ctx.req.url ?? '/'}`, {
    method: ctx.method,
    headers,
  });
}
const BODY_HEADERS = new Set(['content-length', 'transfer-encoding', 'content-encoding']);

/** The request as Node parsed it, its web form made once and only when something reads it. */
function incomingOf(ctx: Koa.Context): Incoming {
  let request: Request | undefined;
  return {
    method: ctx.method,
    headers: ctx.req.headers,
    request: () => (request ??= webRequest(ctx)),
  };
}

/**
 * DNS-rebinding protection, as the SDK's own checks answer it. Their verdict follows from the Host and
 * Origin headers alone, so a pair they let through is let through again without asking (bounded: a
 * process is reached under few names).
 */
const passedHosts = new WeakMap<AppDeps, Set<string>>();
const PASSED_HOSTS_HELD = 64;

function refusedHost(deps: AppDeps, ctx: Koa.Context, incoming: Incoming): Response | undefined {
  const { host, origin } = ctx.req.headers;
  const pair = host === undefined ? undefined : `${host}\n${origin ?? ''}`;
  let passed = passedHosts.get(deps);
  if (pair !== undefined && passed?.has(pair)) return undefined;
  const allowed = allowedHosts(deps);
  const request = incoming.request();
  const refused =
    hostHeaderValidationResponse(request, allowed.hosts) ??
    originValidationResponse(request, allowed.origins);
  if (refused || pair === undefined) return refused;
  if (!passed) passedHosts.set(deps, (passed = new Set()));
  if (passed.size >= PASSED_HOSTS_HELD) passed.clear();
  passed.add(pair);
  return undefined;
}

async function serve(
  deps: AppDeps,
  ctx: Koa.Context,
  principal: Principal,
  session: SessionRow,
  body: unknown,
  requestId: string,
): Promise<void> {
  const incoming = incomingOf(ctx);
  const refused = refusedHost(deps, ctx, incoming);
  if (refused) return pipe(ctx, refused);
  const caller = { principal, session, requestId, origin: publicOrigin(deps.config, ctx) };
  const token = /^Bearer[ \t]+(\S+)/i.exec(ctx.get('Authorization'))?.[1] ?? '';
  const response = await endpointOf(deps).serve(
    incoming,
    ctx.method === 'POST' ? body : undefined,
    authInfoFor(token, caller),
    caller,
    session.servers,
  );
  await pipe(ctx, response);
}

// A JSON-RPC message (or, on the 2025 protocol, a non-empty batch); the transport judges it further.
const JsonRpcMessage = {
  type: 'object',
  required: ['jsonrpc'],
  properties: {
    jsonrpc: { const: '2.0' },
    id: { type: ['string', 'integer'] },
    method: { type: 'string', minLength: 1 },
    params: { type: 'object' },
    result: { type: 'object' },
    error: { type: 'object' },
  },
} as const satisfies JsonSchema;
const JsonRpcBody = {
  anyOf: [JsonRpcMessage, { type: 'array', minItems: 1, items: JsonRpcMessage }],
  description: 'A JSON-RPC 2.0 message of the MCP Streamable HTTP transport.',
} as const satisfies JsonSchema;

// GET and DELETE act on a 2025-era MCP session, named by the id its initialize answer carried.
const McpSessionHeader = {
  type: 'object',
  required: ['Mcp-Session-Id'],
  properties: {
    'Mcp-Session-Id': {
      type: 'string',
      pattern: '^[\\x21-\\x7e]+$',
      description: "The MCP session's id, from the `Mcp-Session-Id` header of its initialize answer.",
    },
  },
} as const satisfies JsonSchema;

// The transport answers in JSON-RPC (or an SSE stream), not the gateway's envelope: its statuses carry no schema.
const RESPONSES = {
  200: { description: "The transport's answer: JSON, or an SSE stream (`text/event-stream`)" },
  202: { description: 'A notification or response accepted' },
  400: {
    description: 'A message the transport refuses (JSON-RPC error), or a malformed session id in the path',
  },
  401: {
    description:
      '`{error: unauthorized}` with `WWW-Authenticate: Bearer resource_metadata="…/.well-known/oauth-protected-resource", scope="tools:execute"`',
    schema: Unauthorized,
  },
  403: {
    description:
      'The key lacks `tools:execute` (flat `forbidden`, with `WWW-Authenticate: Bearer error="insufficient_scope"`), or a Host / Origin not allowed (JSON-RPC error)',
  },
  404: { description: '`not_found` session, or an unknown MCP session id (JSON-RPC error)' },
  405: { description: 'A method the transport does not serve in this protocol era' },
  406: {
    description:
      "The Accept header does not admit the transport's answer (`application/json` and `text/event-stream`)",
  },
  409: { description: '`session_closed`, or a 2025-era stream already open for the MCP session' },
  415: { description: 'The body is not `application/json`' },
};

function mcpRoute(method: HttpMethod, path: string, withSession: boolean): AnyRoute {
  const verb =
    method === 'post'
      ? 'Send a message'
      : method === 'get'
        ? 'Open the server-to-client stream (2025 protocol)'
        : 'End an MCP session (2025 protocol)';
  return route({
    method,
    path,
    auth: 'key',
    scope: 'tools:execute',
    tags: ['MCP'],
    challengeScope: true,
    operationId: `${method}${withSession ? 'Session' : ''}Mcp`,
    summary: `${verb} on the hosted MCP endpoint${withSession ? ' of a session' : " (the credential's own session)"}`,
    description:
      "The MCP Streamable HTTP transport. tools/list lists the session's tools with their JSON Schemas; tools/call takes the same path as `POST /v1/sessions/{id}/tool-calls` (policy, approvals, attempts, recording, events); a denied or held call is a tool error carrying the flat denial, and any refusal REST answers with a status (a provider's 502 `provider_error`, 424 `not_connected`, …) a tool error carrying REST's error body.",
    ...(withSession ? { params: SessionParams } : {}),
    ...(method === 'post' ? { body: JsonRpcBody } : { headers: McpSessionHeader }),
    responses: RESPONSES,
    async handler({ deps, ctx, principal, params, body, requestId }) {
      // A tools/call has its session checked open again by the statement that counts it: it may come from the
      // cache. Anything else (tools/list) takes a cached session only while closes are heard.
      const read = isToolCall(body) ? getSessionForCall : getSessionNow;
      const session = withSession
        ? await read(deps.db, principal.orgId, principal.projectId, params.id!)
        : await resumeOrOpen(deps, principal);
      requireActive(session);
      await serve(deps, ctx, principal, session, body, requestId);
      return {};
    },
  });
}

export const mcpRoutes: AnyRoute[] = (['post', 'get', 'delete'] as const).flatMap((method) => [
  mcpRoute(method, '/v1/sessions/:id/mcp', true),
  mcpRoute(method, '/mcp', false),
]);
