// POST /v1/sessions/{id}/proxy_execute: a raw HTTP request to one of an open session's connected providers,
// sent by the proxy core (providers/proxy) with the vault credential injected. The caller gets the
// provider's status, headers and body back inside a 200; a provider that cannot be reached, and the
// gateway's own refusals, are answered in the envelope as providers/provider-failure.ts names them.
import { ApiError } from '../../domain/errors';
import { catalogServer } from '../../domain/providers/catalog';
import { ownArchivedGenerated, ownGeneratedProvider } from '../../domain/generated-servers/provider-lookup';
import { currentConnectionSealed } from '../../domain/providers/connections';
import { getSession, requireActive } from '../../domain/sessions/sessions';
import { keyServiceFor } from '../../domain/vault/select';
import { oauthClientFor } from '../../providers/auth/oauth-refresh';
import { failureOfError, providerFailureError } from '../../providers/provider-failure';
import { proxyExecute, type ProxyAnswer } from '../../providers/proxy/proxy-execute';
import { ErrorEnvelope, ForbiddenScope } from '../../schema/http/common';
import { ProxyExecuteAnswer, ProxyExecuteBody } from '../../schema/http/proxy-execute';
import { SessionParams } from '../../schema/http/sessions';
import type { SchemaValue } from '../../schema/http/json-schema';
import type { AppDeps } from '../deps';
import type { Principal } from '../principal';
import { route, type AnyRoute } from '../route';

/** A proxied request, as its schema admits it. */
type ProxyExecuteRequest = SchemaValue<typeof ProxyExecuteBody>;

function requestBody(body: ProxyExecuteRequest): { bytes: Buffer; contentType?: string } {
  if (body.body_base64 !== undefined) return { bytes: Buffer.from(body.body_base64, 'base64') };
  if (body.body === undefined) return { bytes: Buffer.alloc(0) };
  if (typeof body.body === 'string')
    return { bytes: Buffer.from(body.body, 'utf8'), contentType: 'text/plain; charset=utf-8' };
  return { bytes: Buffer.from(JSON.stringify(body.body), 'utf8'), contentType: 'application/json' };
}

function pathWithQuery(path: string, query: ProxyExecuteRequest['query']): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {}))
    for (const one of Array.isArray(value) ? value : [value]) params.append(name, one);
  const extra = params.toString();
  if (!extra) return path;
  return `${path}${path.includes('?') ? '&' : '?'}${extra}`;
}

/** The provider's body as JSON when it says so and parses, as text when it is UTF-8, else base64. */
function presentBody(answer: ProxyAnswer): {
  body: unknown;
  body_encoding: 'json' | 'text' | 'base64' | 'empty';
} {
  if (answer.body.length === 0) return { body: null, body_encoding: 'empty' };
  const text = answer.body.toString('utf8');
  if (/\bjson\b/i.test(answer.headers['content-type'] ?? '')) {
    try {
      return { body: JSON.parse(text) as unknown, body_encoding: 'json' };
    } catch {
      // a provider mislabelling its body: fall through to text or base64
    }
  }
  if (Buffer.from(text, 'utf8').equals(answer.body)) return { body: text, body_encoding: 'text' };
  return { body: answer.body.toString('base64'), body_encoding: 'base64' };
}

async function execute(deps: AppDeps, principal: Principal, sessionId: string, body: ProxyExecuteRequest) {
  // A catalog provider, or the project's own published generated server.
  const server =
    catalogServer(body.server_id) ?? (await ownGeneratedProvider(deps.db, principal, body.server_id));
  // The session and the project's connection are read together: one round trip less on every call.
  const [session, current] = await Promise.all([
    getSession(deps.db, principal.orgId, principal.projectId, sessionId),
    server && server.auth_type !== 'none' ? currentConnectionSealed(deps.db, principal, server.id) : null,
  ]);
  const connection = current?.connection ?? null;
  requireActive(session);
  if (!session.servers.includes(body.server_id)) {
    throw new ApiError(404, 'server_not_in_session', `The session has no server "${body.server_id}"`, {
      server_id: body.server_id,
      servers: session.servers,
    });
  }
  // The project's archived generated server is gone as a provider: 404 as tool calls on it answer.
  if (!server && (await ownArchivedGenerated(deps.db, principal, body.server_id)))
    throw providerFailureError({ kind: 'server_unknown', serverId: body.server_id });
  if (!server)
    throw new ApiError(
      400,
      'server_not_proxyable',
      `"${body.server_id}" is not a provider with an upstream; call its tools instead`,
      { server_id: body.server_id },
    );
  if (server.auth_type !== 'none' && (!connection || connection.status !== 'active'))
    throw providerFailureError({ kind: 'not_connected', server });
  const { bytes, contentType } = requestBody(body);
  const headers = { ...body.headers };
  if (contentType && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type'))
    headers['content-type'] = contentType;
  try {
    const answer = await proxyExecute(
      {
        db: deps.db,
        keys: keyServiceFor(deps.config.vault),
        oauthClient: oauthClientFor(server, principal.environment, deps.config.providerOAuthClients),
        endpoints: deps.config,
        timeoutMs: body.timeout_ms ?? deps.config.providerTimeoutMs,
      },
      {
        server,
        environment: principal.environment,
        connection,
        sealed: current?.sealed ?? null,
        method: body.method,
        path: pathWithQuery(body.path, body.query),
        headers,
        body: bytes,
      },
    );
    return {
      object: 'proxy_response',
      server_id: server.id,
      status: answer.status,
      headers: answer.headers,
      ...presentBody(answer),
      latency_ms: answer.latency_ms,
    };
  } catch (error) {
    const failure = failureOfError(server.id, error);
    if (failure) throw providerFailureError(failure);
    throw error;
  }
}

export const proxyExecuteRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/v1/sessions/:id/proxy_execute',
    auth: 'key',
    scope: 'proxy:execute',
    tags: ['Sessions'],
    operationId: 'proxyExecute',
    summary:
      'Send a raw HTTP request to a connected provider of the session, with the stored credential injected',
    description:
      "Only the provider's own base URL is reachable: `path` is relative to it and cannot leave it, and in live mode every address the provider's host resolves to must be public (loopback, private, link-local and reserved ranges are refused) and the connection is pinned to the checked address. Redirects are not followed. The request body is capped at 1 MiB, the answer at 5 MiB. The stored credential is never returned: the caller's own credential headers are dropped, and any credential value the provider echoes is redacted. `proxy:execute` cannot be granted to a restricted key, so only unrestricted keys (and OAuth grants made with one) call this.",
    params: SessionParams,
    body: ProxyExecuteBody,
    responses: {
      200: {
        description: 'The provider answered; its status (2xx or a refusal) is in `status`',
        schema: ProxyExecuteAnswer,
      },
      400: {
        description:
          "`invalid_body`, `proxy_path_invalid` (the path leaves the provider's base URL), `server_not_proxyable` (the gateway's own server)",
        schema: ErrorEnvelope,
      },
      403: {
        description:
          "`forbidden` (the key lacks `proxy:execute`), `proxy_destination_forbidden` (live mode: the provider's host resolves to a loopback, private or reserved address)",
        schema: { anyOf: [ErrorEnvelope, ForbiddenScope] },
      },
      404: {
        description:
          "`not_found` (no such session in the caller's project), `server_not_in_session`, `server_unknown` (a generated server of the project archived since the session opened)",
        schema: ErrorEnvelope,
      },
      409: { description: '`session_closed` (details.close_reason)', schema: ErrorEnvelope },
      413: { description: '`payload_too_large` / `proxy_body_too_large`', schema: ErrorEnvelope },
      424: {
        description: '`not_connected` with details.hint: the provider has no active connection',
        schema: ErrorEnvelope,
      },
      502: {
        description:
          '`provider_error`, retriable: no answer from the provider (details.reason `unreachable`, also a host that does not resolve; `timeout`, past `timeout_ms`; `response_too_large`), or an OAuth grant it will not refresh (details.reason `credential_rejected`, details.status)',
        schema: ErrorEnvelope,
      },
      503: {
        description: '`endpoint_missing` (no endpoint for the environment), `vault_unavailable`',
        schema: ErrorEnvelope,
      },
    },
    async handler({ deps, principal, params, body }) {
      return { body: await execute(deps, principal, params.id, body) };
    },
  }),
];
