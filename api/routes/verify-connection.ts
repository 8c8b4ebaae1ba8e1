// POST /v1/providers/{slug}/verify-connection: one authenticated read at the provider with the stored
// credential, answered in the spec's `ok`-shaped bodies (branch on `ok`): 200 with the account and
// latency; 401 with the provider's words; 403 proxy_destination_forbidden (live: a private address); 404
// (unknown, or another project's generated server); 409 redirect_not_followed; 424 not_connected; 501
// verify_unsupported; 502 provider_unreachable; 503 endpoint_missing. Failures are mapped by
// providers/provider-failure.ts, as for tool calls and the proxy.
import { FlatError } from '../../domain/errors';
import { catalogServers, type CatalogServer } from '../../domain/providers/catalog';
import { currentConnection, recordVerification } from '../../domain/providers/connections';
import { resolveServer } from '../../domain/providers/resolve';
import { keyServiceFor } from '../../domain/vault/select';
import { oauthClientFor } from '../../providers/auth/oauth-refresh';
import { callWithConnection, providerWords } from '../../providers/connection-call';
import { catalogEndpoint } from '../../domain/providers/endpoints';
import { failureOfError, failureOfStatus, verifyFailure } from '../../providers/provider-failure';
import { pinnedPublicAddress } from '../../providers/proxy/proxy-execute';
import { ErrorEnvelope } from '../../schema/http/common';
import { ForeignServer, SlugParams, VerifyFailure, VerifyOk } from '../../schema/http/providers';
import type { Principal } from '../principal';
import type { AppDeps } from '../deps';
import { route } from '../route';

const MAX_ACCOUNT_BYTES = 256 * 1024;

const fail = (status: number, provider: string, error: string, extra: Record<string, unknown> = {}) =>
  new FlatError(status, { ok: false, error, provider, ...extra });

function alternativeTo(server: CatalogServer): string | undefined {
  return catalogServers().find(
    (s) => s.id !== server.id && s.category === server.category && s.verify !== null,
  )?.id;
}

function accountOf(
  body: Buffer,
): { id: string; name: string | null; extras: Record<string, unknown> } | undefined {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    if (typeof parsed.id !== 'string' && typeof parsed.id !== 'number') return undefined;
    const extras =
      parsed.extras && typeof parsed.extras === 'object' && !Array.isArray(parsed.extras)
        ? (parsed.extras as Record<string, unknown>)
        : {};
    return { id: String(parsed.id), name: typeof parsed.name === 'string' ? parsed.name : null, extras };
  } catch {
    return undefined;
  }
}

async function verify(deps: AppDeps, principal: Principal, slug: string) {
  const resolved = await resolveServer(deps.db, principal, slug);
  if (resolved.kind === 'foreign_generated')
    throw new FlatError(404, { error: 'not_found', server_id: slug });
  if (resolved.kind === 'unknown') throw verifyFailure({ kind: 'server_unknown', serverId: slug });
  const server = resolved.server;
  if (!server.verify)
    throw fail(501, server.id, 'verify_unsupported', { detail: `${server.name} offers no credential check` });
  const baseUrl = catalogEndpoint(deps.config, server, principal.environment);
  if (!baseUrl)
    throw fail(503, server.id, 'endpoint_missing', {
      detail: `The catalog has no ${principal.environment} endpoint for ${server.name}`,
    });

  const connection =
    server.auth_type === 'none' ? null : await currentConnection(deps.db, principal, server.id);
  if (server.auth_type !== 'none' && (!connection || connection.status === 'inactive'))
    throw verifyFailure({ kind: 'not_connected', server, alternative: alternativeTo(server) });

  let outcome;
  try {
    // Live calls reach public addresses only, pinned to the checked one, as every other provider call.
    const pinned =
      principal.environment === 'live'
        ? await pinnedPublicAddress(new URL(baseUrl.replace(/\/+$/, '') + server.verify.path))
        : undefined;
    outcome = await callWithConnection(
      {
        db: deps.db,
        keys: keyServiceFor(deps.config.vault),
        oauthClient: oauthClientFor(server, principal.environment, deps.config.providerOAuthClients),
      },
      { server, baseUrl, connection, method: server.verify.method, path: server.verify.path },
      {
        timeoutMs: deps.config.providerTimeoutMs,
        maxResponseBytes: MAX_ACCOUNT_BYTES,
        ...(pinned ? { lookupAddress: pinned } : {}),
      },
    );
  } catch (error) {
    const failure = failureOfError(server.id, error);
    if (!failure) throw error;
    if (failure.kind === 'credential_rejected' && connection)
      await recordVerification(deps.db, connection, 'refused');
    throw verifyFailure(failure);
  }
  const { answer, credential } = outcome;
  if (answer.status >= 200 && answer.status < 300) {
    if (connection) await recordVerification(deps.db, connection, 'accepted');
    const account = accountOf(answer.body);
    return { ok: true, provider: server.id, ...(account ? { account } : {}), latency_ms: answer.latencyMs };
  }
  const failure = failureOfStatus(server.id, answer.status, providerWords(answer.body, credential));
  if (failure.kind === 'credential_rejected' && connection)
    await recordVerification(deps.db, connection, 'refused');
  throw verifyFailure(failure);
}

export const verifyConnectionRoute = route({
  method: 'post',
  path: '/v1/providers/:slug/verify-connection',
  auth: 'key',
  scope: 'servers:read',
  tags: ['Providers'],
  operationId: 'verifyProviderConnection',
  summary: 'Check the stored credential with one authenticated read at the provider',
  params: SlugParams,
  responses: {
    200: { description: '`{ok: true, provider, account?, latency_ms}`', schema: VerifyOk },
    401: {
      description:
        "`credential_rejected`: the provider refused the stored credential; `detail` has its words (never about the caller's key)",
      schema: VerifyFailure,
    },
    404: {
      description:
        "`{ok: false, error: server_unknown}`, or the bare `{error, server_id}` of another project's generated server",
      schema: { anyOf: [VerifyFailure, ForeignServer] },
    },
    403: {
      description:
        "`proxy_destination_forbidden`: live mode, the provider's host resolves to a loopback, private or reserved address (nothing was sent)",
      schema: VerifyFailure,
    },
    409: { description: '`redirect_not_followed`', schema: VerifyFailure },
    424: { description: '`not_connected`, with `hint` and `alternative`', schema: VerifyFailure },
    501: { description: '`verify_unsupported`', schema: VerifyFailure },
    502: {
      description:
        '`provider_unreachable`, retriable; `status` present when the provider answered (no `status`: nobody answered, or the host does not resolve)',
      schema: VerifyFailure,
    },
    503: {
      description: '`endpoint_missing`, or `vault_unavailable` in the error envelope',
      schema: { anyOf: [VerifyFailure, ErrorEnvelope] },
    },
  },
  async handler({ deps, principal, params }) {
    return { body: await verify(deps, principal, params.slug) };
  },
});
