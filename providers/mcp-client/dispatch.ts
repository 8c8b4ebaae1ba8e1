// A tenant tool server's tool called upstream over MCP, with the server's credential opened from the vault
// on the way: used for free tools by the tool-call path (and an approved call's replay), and by the paid
// call's activity. The upstream's answer becomes a tool outcome: its result on success, a stable code else.
import { publishedToolServers } from '../../domain/tool-servers/servers';
import { openUpstreamAuth } from '../../domain/tool-servers/upstream-auth';
import type { Environment } from '../../domain/tenancy/api-key-format';
import { keyServiceFor } from '../../domain/vault/select';
import type { VaultSettings } from '../../runtime/config';
import type { DatabasePool } from '../../runtime/database';
import type { ApiError } from '../../domain/errors';
import { failureOfUpstream, providerFailureError } from '../provider-failure';
import { callUpstream, type UpstreamAuth, type UpstreamCallOutcome } from './upstream';

export interface TenantDispatchDeps {
  db: DatabasePool;
  config: { vault: VaultSettings; providerTimeoutMs: number };
}

export interface TenantToolOutcome {
  ok: boolean;
  output: Record<string, unknown>;
  errorCode: string | null;
  /** A failure's answer (provider-failure.ts): the REST door throws it once the call is recorded. */
  refusal?: ApiError;
}

export async function callTenantTool(
  deps: TenantDispatchDeps,
  call: {
    serverId: string;
    upstreamUrl: string;
    environment: Environment;
    tool: string;
    arguments: Record<string, unknown>;
    /** The server's credential when the caller opened it already (null: it has none); else opened here. */
    auth?: UpstreamAuth | null;
  },
): Promise<UpstreamCallOutcome> {
  const auth =
    call.auth === undefined
      ? await openUpstreamAuth(deps.db, keyServiceFor(deps.config.vault), call.serverId)
      : call.auth;
  return callUpstream(
    { url: call.upstreamUrl, auth, environment: call.environment, timeoutMs: deps.config.providerTimeoutMs },
    call.tool,
    call.arguments,
  );
}

/**
 * The upstream's answer as a tool outcome, recorded under the upstream's own code (`upstream_tool_error`, …);
 * a failure also carries the answer the REST door gives it, 502 `provider_error` as for catalog providers.
 */
export function asToolOutcome(outcome: UpstreamCallOutcome, serverId: string): TenantToolOutcome {
  if (outcome.status === 'succeeded') return { ok: true, errorCode: null, output: outcome.output };
  const code = outcome.status === 'failed' ? outcome.code : 'upstream_outcome_unknown';
  const upstream = outcome.status === 'failed' ? outcome.output : undefined;
  return {
    ok: false,
    errorCode: code,
    output: { error: { code, message: outcome.message }, ...(upstream ? { upstream } : {}) },
    refusal: providerFailureError(failureOfUpstream(serverId, code, outcome.message, upstream)),
  };
}

/** A free tool of a published server, named by its slug (the approval replay's door). */
export async function dispatchTenantToolBySlug(
  deps: TenantDispatchDeps,
  call: { environment: Environment; slug: string; tool: string; arguments: Record<string, unknown> },
): Promise<TenantToolOutcome | null> {
  const [server] = await publishedToolServers(deps.db, call.environment, [call.slug]);
  const tool = server?.tools.find((t) => t.tool_name === call.tool);
  if (!server || !tool) return null;
  // A priced tool is a money move and never runs through this door.
  if (tool.price_minor > 0n)
    return {
      ok: false,
      errorCode: 'priced_tool',
      output: { error: { code: 'priced_tool', message: 'A priced tool is charged through its attempt' } },
    };
  return asToolOutcome(
    await callTenantTool(deps, {
      serverId: server.id,
      upstreamUrl: server.upstream_url,
      environment: call.environment,
      tool: call.tool,
      arguments: call.arguments,
    }),
    call.slug,
  );
}
