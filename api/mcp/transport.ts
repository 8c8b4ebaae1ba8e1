// The Streamable HTTP transport in both protocol eras the SDK speaks: current (2026-07-28) requests are
// served per request by the SDK's handler from a server built for the session (tools/call and tools/list
// of a shape the SDK already accepted are answered with its bytes without one, and without a web request:
// a shape the SDK answered with a result was a current-protocol request, and so is every request of it);
// 2025-era traffic keeps a session-based transport per MCP session (initialize, POST, GET stream, DELETE),
// held in this process and bound to the gateway session and caller that opened it.
import { randomUUID } from 'node:crypto';
import {
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type McpHttpHandler,
} from '@modelcontextprotocol/server';
import type { AppDeps } from '../deps';
import { callAnswers } from './call-answers';
import { listAnswers } from './list-answers';
import { listedToolsKey, sessionServer, type McpCaller } from './server';
import type { Incoming, McpAnswer } from './whole-answer';

interface LegacySession {
  transport: WebStandardStreamableHTTPServerTransport;
  gatewaySessionId: string;
  projectId: string;
  lastSeen: number;
}

/** A 2025-era MCP session nobody has used for this long is closed when the next one opens. */
const LEGACY_IDLE_MS = 60 * 60 * 1000;

function jsonRpcError(status: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}

export interface McpEndpoint {
  serve(
    incoming: Incoming,
    parsedBody: unknown,
    authInfo: AuthInfo,
    caller: McpCaller,
    servers: string[],
  ): Promise<McpAnswer>;
  close(): Promise<void>;
}

export function mcpEndpoint(deps: AppDeps): McpEndpoint {
  const legacy = new Map<string, LegacySession>();
  // The factory reads the session's servers from the request's own authInfo: one handler serves every session.
  const modern: McpHttpHandler = createMcpHandler(() => sessionServer(deps), {
    legacy: 'reject',
    onerror: (error) => deps.log.warn('mcp request failed', { error: error.message }),
  });

  const lists = listAnswers();
  const calls = callAnswers(deps);

  async function serveLegacy(
    request: Request,
    parsedBody: unknown,
    authInfo: AuthInfo,
    caller: McpCaller,
  ): Promise<Response> {
    const mcpSessionId = request.headers.get('mcp-session-id');
    if (mcpSessionId) {
      const known = legacy.get(mcpSessionId);
      // Another gateway session's (or project's) MCP session is as unknown as one that never existed.
      if (
        !known ||
        known.gatewaySessionId !== caller.session.id ||
        known.projectId !== caller.principal.projectId
      )
        return jsonRpcError(404, 'Session not found');
      known.lastSeen = Date.now();
      return known.transport.handleRequest(request, { parsedBody, authInfo });
    }
    if (request.method !== 'POST') return jsonRpcError(400, 'Bad Request: Mcp-Session-Id header is required');
    const idleSince = Date.now() - LEGACY_IDLE_MS;
    for (const [id, idle] of legacy) {
      if (idle.lastSeen < idleSince) {
        legacy.delete(id);
        void idle.transport.close().catch(() => undefined);
      }
    }
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        legacy.set(id, {
          transport,
          gatewaySessionId: caller.session.id,
          projectId: caller.principal.projectId,
          lastSeen: Date.now(),
        });
      },
      onsessionclosed: (id) => {
        legacy.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) legacy.delete(transport.sessionId);
    };
    await sessionServer(deps).connect(transport);
    return transport.handleRequest(request, { parsedBody, authInfo });
  }

  return {
    async serve(incoming, parsedBody, authInfo, caller, servers) {
      const withServers: AuthInfo = { ...authInfo, extra: { ...authInfo.extra, servers } };
      const call = calls.accepted(incoming, parsedBody);
      if (call) return calls.run(call, withServers);
      const listKey = await lists.key(incoming, parsedBody, () =>
        listedToolsKey(deps, caller.principal.environment, servers),
      );
      const kept = listKey === undefined ? undefined : lists.kept(listKey);
      if (kept) return kept;
      const request = incoming.request();
      if (await isLegacyRequest(request, parsedBody))
        return serveLegacy(request, parsedBody, withServers, caller);
      const sdk = () => modern.fetch(request, { authInfo: withServers, parsedBody });
      if (listKey !== undefined) return lists.keep(listKey, await sdk());
      return calls.answer(incoming, parsedBody, sdk);
    },
    async close() {
      await modern.close();
      await Promise.all([...legacy.values()].map((s) => s.transport.close()));
      legacy.clear();
    },
  };
}
