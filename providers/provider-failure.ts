// What can go wrong reaching a catalog provider, classified once, and the one answer each door gives for
// it: tool calls and the proxy answer in the error envelope (a provider that fails is 502 `provider_error`,
// retriable, its status and words in `details`; a missing connection 424 `not_connected`; a server nobody
// knows 404 `server_unknown`; the gateway's own refusals keep their codes; a tenant tool server's upstream
// failing the call is a provider failure too), verify-connection in its
// `ok`-shaped bodies. Credential values never reach an answer: provider bodies arrive here already
// scrubbed by the proxy core or are read through providerWords.
import { ApiError, FlatError } from '../domain/errors';
import { connectRoute, type CatalogServer } from '../domain/providers/catalog';
import { OAuthGrantRefused } from './auth/oauth-refresh';
import { ProxyRefused } from './proxy/proxy-execute';
import { UpstreamUnreachable } from './upstream/send';

/** The gateway's own refusals: nothing was sent to the provider. */
type Refusal = Exclude<ProxyRefused['code'], 'host_unresolved'>;

export type ProviderFailure =
  | { kind: 'server_unknown'; serverId: string }
  | { kind: 'not_connected'; server: Pick<CatalogServer, 'id' | 'name' | 'auth_type'>; alternative?: string }
  | { kind: 'refused'; serverId: string; code: Refusal; message: string }
  /** Nobody answered: no route to the host, no name for it, no answer in time, an answer too large. */
  | {
      kind: 'unreachable';
      serverId: string;
      reason: 'unreachable' | 'timeout' | 'response_too_large';
      message: string;
    }
  /** The provider refused the stored credential (401/403), or its OAuth grant on refresh. */
  | {
      kind: 'credential_rejected';
      serverId: string;
      status: number;
      words: string;
      response?: unknown;
      /** Refused at the OAuth token endpoint on refresh, not by the call itself. */
      grant?: true;
    }
  /** The provider answered something other than success. */
  | { kind: 'provider_status'; serverId: string; status: number; words: string; response?: unknown }
  /**
   * A tenant tool server's MCP upstream failed the call: its tool answered an error, refused the call or
   * the credential, gave no answer in time or none at all (`code`: the recorded `upstream_*` code).
   */
  | { kind: 'upstream_failed'; serverId: string; code: string; message: string; output?: unknown };

const REFUSAL_STATUS: Record<Refusal, number> = {
  proxy_path_invalid: 400,
  proxy_method_invalid: 400,
  proxy_body_too_large: 413,
  proxy_destination_forbidden: 403,
  endpoint_missing: 503,
};

/** The failure a thrown provider-call error stands for; null for anything that is not one (a bug, the vault). */
export function failureOfError(serverId: string, error: unknown): ProviderFailure | null {
  if (error instanceof ProxyRefused) {
    if (error.code === 'host_unresolved')
      return { kind: 'unreachable', serverId, reason: 'unreachable', message: error.message };
    return { kind: 'refused', serverId, code: error.code, message: error.message };
  }
  if (error instanceof UpstreamUnreachable) {
    const reason =
      error.reason === 'timeout'
        ? 'timeout'
        : error.reason === 'too_large'
          ? 'response_too_large'
          : 'unreachable';
    return { kind: 'unreachable', serverId, reason, message: error.message };
  }
  if (error instanceof OAuthGrantRefused)
    return { kind: 'credential_rejected', serverId, status: error.status, words: error.words, grant: true };
  return null;
}

/** The failure a provider's non-2xx answer stands for (3xx included: redirects are never followed). */
export function failureOfStatus(
  serverId: string,
  status: number,
  words: string,
  response?: unknown,
): ProviderFailure {
  const kind = status === 401 || status === 403 ? 'credential_rejected' : 'provider_status';
  return { kind, serverId, status, words, ...(response !== undefined ? { response } : {}) };
}

/**
 * The failure a tenant tool server's recorded `upstream_*` code stands for: a host the gateway will not
 * reach is its own refusal, as for catalog providers; anything else the upstream failing the call.
 */
export function failureOfUpstream(
  serverId: string,
  code: string,
  message: string,
  output?: unknown,
): ProviderFailure {
  if (code === 'upstream_forbidden_address')
    return { kind: 'refused', serverId, code: 'proxy_destination_forbidden', message };
  return { kind: 'upstream_failed', serverId, code, message, ...(output !== undefined ? { output } : {}) };
}

const WHY: Record<Extract<ProviderFailure, { kind: 'unreachable' }>['reason'], string> = {
  unreachable: 'could not be reached',
  timeout: 'gave no answer in time',
  response_too_large: 'answered with more than the gateway accepts',
};

/** The envelope answer of tool calls and the proxy. */
export function providerFailureError(failure: ProviderFailure): ApiError {
  switch (failure.kind) {
    case 'server_unknown':
      return new ApiError(404, 'server_unknown', `No server "${failure.serverId}" in the catalog`, {
        server_id: failure.serverId,
      });
    case 'not_connected':
      return new ApiError(
        424,
        'not_connected',
        `${failure.server.name} has no active connection in this project`,
        {
          server_id: failure.server.id,
          hint: connectRoute(failure.server),
          ...(failure.alternative ? { alternative: failure.alternative } : {}),
        },
      );
    case 'refused':
      return new ApiError(REFUSAL_STATUS[failure.code], failure.code, failure.message, {
        server_id: failure.serverId,
      });
    case 'unreachable':
      return new ApiError(502, 'provider_error', `The provider ${WHY[failure.reason]}: ${failure.message}`, {
        server_id: failure.serverId,
        reason: failure.reason,
      });
    case 'credential_rejected':
    case 'provider_status':
      return new ApiError(
        502,
        'provider_error',
        failure.kind === 'credential_rejected'
          ? `The provider refused the stored ${failure.grant ? 'grant; reconnect it' : 'credential'} (${failure.status}): ${failure.words}`
          : `The provider answered ${failure.status}: ${failure.words}`,
        {
          server_id: failure.serverId,
          reason: failure.kind,
          status: failure.status,
          provider_message: failure.words,
          ...(failure.response !== undefined ? { provider_response: failure.response } : {}),
        },
      );
    case 'upstream_failed':
      return new ApiError(
        502,
        'provider_error',
        `The tool server's upstream failed the call: ${failure.message}`,
        {
          server_id: failure.serverId,
          reason: failure.code,
          provider_message: failure.message,
          ...(failure.output !== undefined ? { provider_response: failure.output } : {}),
        },
      );
  }
}

/**
 * verify-connection's `ok: false` answer: its own codes where the spec names them (401
 * `credential_rejected`, 409 `redirect_not_followed`, 502 `provider_unreachable` with `status` when the
 * provider answered), the same statuses as every other door elsewhere.
 */
export function verifyFailure(failure: ProviderFailure): FlatError {
  const fail = (status: number, provider: string, error: string, extra: Record<string, unknown> = {}) =>
    new FlatError(status, { ok: false, error, provider, ...extra });
  switch (failure.kind) {
    case 'server_unknown':
      return fail(404, failure.serverId, 'server_unknown');
    case 'not_connected':
      return fail(424, failure.server.id, 'not_connected', {
        hint: connectRoute(failure.server),
        ...(failure.alternative ? { alternative: failure.alternative } : {}),
      });
    case 'refused':
      return fail(REFUSAL_STATUS[failure.code], failure.serverId, failure.code, { detail: failure.message });
    case 'unreachable':
      return fail(502, failure.serverId, 'provider_unreachable', { detail: failure.message });
    case 'credential_rejected':
      return fail(401, failure.serverId, 'credential_rejected', {
        ...(failure.grant ? {} : { status: failure.status }),
        detail: failure.words,
      });
    case 'provider_status':
      if (failure.status >= 300 && failure.status < 400)
        return fail(409, failure.serverId, 'redirect_not_followed', {
          status: failure.status,
          detail:
            'The provider answered with a redirect; the gateway does not follow redirects with credentials',
        });
      return fail(502, failure.serverId, 'provider_unreachable', {
        status: failure.status,
        detail: failure.words,
      });
    case 'upstream_failed':
      return fail(502, failure.serverId, 'provider_unreachable', { detail: failure.message });
  }
}
