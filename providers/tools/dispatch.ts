// A provider tool call on the wire: `POST <base>/tools/<tool>` with the arguments as JSON, through the proxy
// core, so the connection's vault credential is injected and never seen by the caller. The answer is
// turned into a tool outcome: the provider's JSON on 2xx, a stable error code otherwise. Used by the API
// (a call made now) and by the approval replay's activity (a held call made after a person approved it).
import { catalogServer, type CatalogServer } from '../../domain/providers/catalog';
import { currentConnectionSealed, type Tenant } from '../../domain/providers/connections';
import type { Environment } from '../../domain/tenancy/api-key-format';
import { keyServiceFor } from '../../domain/vault/select';
import type { VaultSettings } from '../../runtime/config';
import type { DatabasePool } from '../../runtime/database';
import { oauthClientFor, OAuthGrantRefused } from '../auth/oauth-refresh';
import { proxyExecute, ProxyRefused, type ProxyAnswer } from '../proxy/proxy-execute';
import { UpstreamUnreachable } from '../upstream/send';
import { dispatchTenantToolBySlug } from '../mcp-client/dispatch';

export interface ToolDispatchDeps {
  db: DatabasePool;
  config: {
    vault: VaultSettings;
    providerUrls: Record<string, string>;
    providerLiveUrls: Record<string, string>;
    providerTimeoutMs: number;
    providerOAuthClients: Record<string, { clientId: string; clientSecret: string }>;
  };
}

export interface ProviderToolCall {
  tenant: Tenant;
  environment: Environment;
  serverId: string;
  tool: string;
  arguments: Record<string, unknown>;
}

export interface ProviderToolOutcome {
  ok: boolean;
  output: Record<string, unknown>;
  errorCode: string | null;
}

function parsed(body: Buffer): unknown {
  const text = body.toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text.slice(0, 2000);
  }
}

const failed = (
  errorCode: string,
  message: string,
  extra: Record<string, unknown> = {},
): ProviderToolOutcome => ({
  ok: false,
  errorCode,
  output: { error: { code: errorCode, message, ...extra } },
});

/**
 * One request to a catalog provider through the project's connection (the proxy core injects the vault
 * credential); null when the project has no active connection to it.
 */
export async function sendToProvider(
  deps: ToolDispatchDeps,
  tenant: Tenant,
  environment: Environment,
  server: CatalogServer,
  request: { method: string; path: string; headers: Record<string, string>; body: Buffer },
): Promise<ProxyAnswer | null> {
  const current =
    server.auth_type === 'none' ? null : await currentConnectionSealed(deps.db, tenant, server.id);
  const connection = current?.connection ?? null;
  if (server.auth_type !== 'none' && (!connection || connection.status !== 'active')) return null;
  return proxyExecute(
    {
      db: deps.db,
      keys: keyServiceFor(deps.config.vault),
      oauthClient: oauthClientFor(server, environment, deps.config.providerOAuthClients),
      endpoints: deps.config,
      timeoutMs: deps.config.providerTimeoutMs,
    },
    { server, environment, connection, sealed: current?.sealed ?? null, ...request },
  );
}

export async function dispatchProviderTool(
  deps: ToolDispatchDeps,
  call: ProviderToolCall,
): Promise<ProviderToolOutcome> {
  const server: CatalogServer | undefined = catalogServer(call.serverId);
  if (!server) {
    // Not a catalog provider: a tenant's published tool server (an approved call's replay comes this way).
    const tenant = await dispatchTenantToolBySlug(deps, {
      environment: call.environment,
      slug: call.serverId,
      tool: call.tool,
      arguments: call.arguments,
    });
    return tenant ?? failed('server_unknown', `No server "${call.serverId}" in the catalog`);
  }
  try {
    const answer = await sendToProvider(deps, call.tenant, call.environment, server, {
      method: 'POST',
      path: `/tools/${call.tool}`,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(JSON.stringify(call.arguments)),
    });
    if (!answer) return failed('not_connected', `${server.name} has no active connection in this project`);
    const body = parsed(answer.body);
    if (answer.status >= 200 && answer.status < 300) {
      return {
        ok: true,
        errorCode: null,
        output:
          body !== null && typeof body === 'object' && !Array.isArray(body)
            ? (body as Record<string, unknown>)
            : { result: body },
      };
    }
    if (answer.status === 401 || answer.status === 403)
      return failed('credential_rejected', 'The provider refused the stored credential', {
        status: answer.status,
        provider_response: body,
      });
    return failed('provider_error', `The provider answered ${answer.status}`, {
      status: answer.status,
      provider_response: body,
    });
  } catch (error) {
    if (error instanceof ProxyRefused) return failed(error.code, error.message);
    if (error instanceof UpstreamUnreachable) return failed('provider_unreachable', error.message);
    if (error instanceof OAuthGrantRefused)
      return failed('credential_rejected', 'The provider refused to refresh the stored grant');
    throw error;
  }
}
