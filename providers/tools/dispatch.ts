// A provider tool call on the wire: `POST <base>/tools/<tool>` with the arguments as JSON (a generated
// server's tool: its document's operation, built by generated-request.ts), through the proxy core, so the connection's vault credential is injected and never seen by the caller. The answer is
// turned into a tool outcome: the provider's JSON on 2xx, else the failure's answer (provider-failure.ts),
// recorded under its code. Used by the API (a call made now, which answers the failure once recorded) and
// by the approval replay's activity (a held call made after a person approved it).
import { catalogServer, type CatalogServer } from '../../domain/providers/catalog';
import { ownGeneratedProvider } from '../../domain/generated-servers/provider-lookup';
import {
  currentConnectionSealed,
  type SealedConnection,
  type Tenant,
} from '../../domain/providers/connections';
import type { Environment } from '../../domain/tenancy/api-key-format';
import { keyServiceFor } from '../../domain/vault/select';
import type { VaultSettings } from '../../runtime/config';
import type { DatabasePool } from '../../runtime/database';
import type { ApiError } from '../../domain/errors';
import { oauthClientFor } from '../auth/oauth-refresh';
import { providerWords } from '../connection-call';
import { proxyExecute, type ProxyAnswer } from '../proxy/proxy-execute';
import {
  failureOfError,
  failureOfStatus,
  providerFailureError,
  type ProviderFailure,
} from '../provider-failure';
import { dispatchTenantToolBySlug } from '../mcp-client/dispatch';
import { generatedRequest } from './generated-request';

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
  /** The project's current connection to the server when the caller has just read it (null: it has none). */
  connection?: SealedConnection | null;
}

export interface ProviderToolOutcome {
  ok: boolean;
  output: Record<string, unknown>;
  errorCode: string | null;
  /** A failure's answer (provider-failure.ts): the REST door throws it once the call is recorded. */
  refusal?: ApiError;
}

function parsed(body: Buffer): unknown {
  const text = body.toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text.slice(0, 2000);
  }
}

/** A failed call is recorded with its answer's code, message and details, so a replay reads the same. */
function failed(failure: ProviderFailure): ProviderToolOutcome {
  const refusal = providerFailureError(failure);
  return {
    ok: false,
    errorCode: refusal.code,
    output: {
      error: {
        code: refusal.code,
        message: refusal.message,
        ...(refusal.details ? { details: refusal.details } : {}),
      },
    },
    refusal,
  };
}

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
  known?: SealedConnection | null,
): Promise<ProxyAnswer | null> {
  const current =
    server.auth_type === 'none'
      ? null
      : known !== undefined
        ? known
        : await currentConnectionSealed(deps.db, tenant, server.id);
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
  const server: CatalogServer | undefined =
    catalogServer(call.serverId) ?? (await ownGeneratedProvider(deps.db, call.tenant, call.serverId));
  if (!server) {
    // Not a catalog provider: a tenant's published tool server (an approved call's replay comes this way).
    const tenant = await dispatchTenantToolBySlug(deps, {
      environment: call.environment,
      slug: call.serverId,
      tool: call.tool,
      arguments: call.arguments,
    });
    return tenant ?? failed({ kind: 'server_unknown', serverId: call.serverId });
  }
  let answer: ProxyAnswer | null;
  try {
    const operation = server.generated?.operations[call.tool];
    if (server.generated && !operation) return failed({ kind: 'server_unknown', serverId: call.serverId });
    answer = await sendToProvider(
      deps,
      call.tenant,
      call.environment,
      server,
      operation
        ? generatedRequest(operation, call.arguments)
        : {
            method: 'POST',
            path: `/tools/${call.tool}`,
            headers: { 'content-type': 'application/json' },
            body: Buffer.from(JSON.stringify(call.arguments)),
          },
      call.connection,
    );
  } catch (error) {
    const failure = failureOfError(server.id, error);
    if (!failure) throw error;
    return failed(failure);
  }
  if (!answer) return failed({ kind: 'not_connected', server });
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
  // The proxy core already blanked any credential value the provider echoed.
  return failed(failureOfStatus(server.id, answer.status, providerWords(answer.body, {}), body));
}
