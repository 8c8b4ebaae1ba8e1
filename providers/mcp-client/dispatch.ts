// A tenant tool server's tool called upstream over MCP, with the server's credential opened from the vault
// on the way: used for free tools by the tool-call path (and an approved call's replay), and by the paid
// call's activity. The upstream's answer becomes a tool outcome: its result on success, a stable code else.
import { publishedToolServers } from '../../domain/tool-servers/servers';
import { openUpstreamAuth } from '../../domain/tool-servers/upstream-auth';
import type { Environment } from '../../domain/tenancy/api-key-format';
import { keyServiceFor } from '../../domain/vault/select';
import type { VaultSettings } from '../../runtime/config';
import type { DatabasePool } from '../../runtime/database';
import { callUpstream, type UpstreamCallOutcome } from './upstream';

export interface TenantDispatchDeps {
  db: DatabasePool;
  config: { vault: VaultSettings; providerTimeoutMs: number };
}

export interface TenantToolOutcome {
  ok: boolean;
  output: Record<string, unknown>;
  errorCode: string | null;
}

export async function callTenantTool(
  deps: TenantDispatchDeps,
  call: {
    serverId: string;
    upstreamUrl: string;
    environment: Environment;
    tool: string;
    arguments: Record<string, unknown>;
  },
): Promise<UpstreamCallOutcome> {
  const auth = await openUpstreamAuth(deps.db, keyServiceFor(deps.config.vault), call.serverId);
  return callUpstream(
    { url: call.upstreamUrl, auth, environment: call.environment, timeoutMs: deps.config.providerTimeoutMs },
    call.tool,
    call.arguments,
  );
}

export function asToolOutcome(outcome: UpstreamCallOutcome): TenantToolOutcome {
  if (outcome.status === 'succeeded') return { ok: true, errorCode: null, output: outcome.output };
  const code = outcome.status === 'failed' ? outcome.code : 'upstream_outcome_unknown';
  return {
    ok: false,
    errorCode: code,
    output: {
      error: { code, message: outcome.message },
      ...(outcome.status === 'failed' && outcome.output ? { upstream: outcome.output } : {}),
    },
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
  );
}
