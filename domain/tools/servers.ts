// The servers a project's sessions can open: the gateway's own tools and its agent cards, always, and each catalog provider
// or published generated server of the project that it has connected (or that needs no credential), and
// tenants' published tool servers. A session refuses any other server id.
import { catalogServer, catalogServers, connectRoute, type CatalogServer } from '../providers/catalog';
import { listConnections, type Tenant } from '../providers/connections';
import type { CommonQueryMethods } from '../../runtime/database';
import { ApiError } from '../errors';
import { projectGenerated } from '../generated-servers/provider-lookup';
import { publishedToolServers } from '../tool-servers/servers';
import { tenantToolSpecs } from '../tool-servers/tool-specs';
import { BUILT_IN_SERVER_IDS, CARDS_SERVER_ID, GATEWAY_SERVER_ID, toolsOfServer } from './registry';
import type { ToolSpec } from './tool-spec';

export interface OpenableServer {
  id: string;
  name: string;
  kind: 'gateway' | 'provider' | 'tool_server';
  description: string | null;
  category: string | null;
  connection_id: string | null;
  tools: ToolSpec[];
}

function providerServer(
  server: CatalogServer,
  connectionId: string | null,
  tools = toolsOfServer(server.id) ?? [],
): OpenableServer {
  return {
    id: server.id,
    name: server.name,
    kind: 'provider',
    description: server.description,
    category: server.category,
    connection_id: connectionId,
    tools,
  };
}

const gatewayServer = (): OpenableServer => ({
  id: GATEWAY_SERVER_ID,
  name: 'Agent Payments Gateway',
  kind: 'gateway',
  category: 'payments',
  connection_id: null,
  description: "The gateway's own operations: wallet balances, paying from a wallet, approval status.",
  tools: toolsOfServer(GATEWAY_SERVER_ID) ?? [],
});

const cardsServer = (): OpenableServer => ({
  id: CARDS_SERVER_ID,
  name: 'Agent cards',
  kind: 'gateway',
  category: 'payments',
  connection_id: null,
  description:
    "Virtual cards bound to the project's wallets, as /v1/cards: issue, read, freeze, unfreeze, close, the issuer's one-time display link, and a card's authorizations.",
  tools: toolsOfServer(CARDS_SERVER_ID) ?? [],
});

export async function openableServers(
  db: CommonQueryMethods,
  tenant: Tenant & { environment: 'live' | 'test' },
): Promise<OpenableServer[]> {
  const active = new Map<string, string>();
  const [connections, generated] = await Promise.all([
    listConnections(db, tenant, {}),
    projectGenerated(db, tenant),
  ]);
  for (const row of connections)
    if (row.status === 'active' && !active.has(row.provider)) active.set(row.provider, row.id);
  const providers = [
    ...catalogServers().map((server) => ({ server, tools: toolsOfServer(server.id) ?? [] })),
    ...generated,
  ]
    .filter(({ server }) => server.auth_type === 'none' || active.has(server.id))
    .map(({ server, tools }) => providerServer(server, active.get(server.id) ?? null, tools))
    .filter((server) => server.tools.length > 0);
  // Tenants' published tool servers of this environment, whichever project published them.
  const published = (await publishedToolServers(db, tenant.environment))
    .map((server): OpenableServer => ({
      id: server.slug,
      name: server.name,
      kind: 'tool_server',
      description: server.description,
      category: server.category,
      connection_id: null,
      tools: tenantToolSpecs(server),
    }))
    .filter((server) => server.tools.length > 0);
  return [gatewayServer(), cardsServer(), ...providers, ...published];
}

/**
 * Checks a session's requested servers: each must be openable now. An id nobody publishes is 404
 * `server_unknown`; a catalog provider without an active connection is 424 `not_connected`, hinting the
 * route that connects the first of them.
 */
export async function requireOpenable(
  db: CommonQueryMethods,
  tenant: Tenant & { environment: 'live' | 'test' },
  requested: string[],
): Promise<string[]> {
  const [servers, generated] = await Promise.all([openableServers(db, tenant), projectGenerated(db, tenant)]);
  const openable = new Set(servers.map((s) => s.id));
  const published = new Set(servers.filter((s) => s.kind === 'tool_server').map((s) => s.id));
  for (const { server } of generated) published.add(server.id);
  const unique = [...new Set(requested)];
  const unknown = unique.filter(
    (id) => !BUILT_IN_SERVER_IDS.includes(id) && !catalogServer(id) && !published.has(id),
  );
  if (unknown.length > 0)
    throw new ApiError(
      404,
      'server_unknown',
      `No server ${unknown.map((id) => `"${id}"`).join(', ')} in the catalog`,
      { server_ids: unknown },
    );
  const missing = unique.filter((id) => !openable.has(id));
  if (missing.length > 0) {
    throw new ApiError(
      424,
      'not_connected',
      `Connect ${missing.join(', ')} before opening a session with it`,
      {
        server_ids: missing,
        hint: connectRoute(catalogServer(missing[0]) ?? { id: missing[0], auth_type: 'api_key' }),
      },
    );
  }
  return unique;
}
