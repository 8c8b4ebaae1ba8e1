// The one registry of tools a session can call: the gateway's own operations (server `gateway`), its
// agent-card operations (server `cards`, which a session includes by naming it), the tools of catalog providers, and (looked up in PostgreSQL) tenant tool servers and generated servers. A tool's name is what policies match (`tools` globs), what REST names in
// `tool` and what MCP lists: `wallet.execute` for the gateway's, `<server>.<tool>` for a provider's.
import type { CommonQueryMethods } from '../../runtime/database';
import { publishedGenerated } from '../generated-servers/provider-lookup';
import { catalogServer, catalogServers, type CatalogServer, type CatalogTool } from '../providers/catalog';
import { publishedToolServers } from '../tool-servers/servers';
import { PAYMENT_ARGUMENT, PaymentArgument, tenantToolSpecs } from '../tool-servers/tool-specs';
import { CARD_TOOLS, CARDS_SERVER_ID } from './card-tools';
import { GATEWAY_SERVER_ID, GATEWAY_TOOLS } from './gateway-tools';
import type { ToolSpec } from './tool-spec';

export { CARDS_SERVER_ID, GATEWAY_SERVER_ID };

/**
 * The schema a session publishes for a provider tool that moves money: the provider's own, plus the
 * reserved `gateway_payment` (the wallet the attempt holds and debits, its optional attempt_id) and any
 * argument the money block has the caller state (an amount the provider prices itself). The gateway takes
 * `gateway_payment` off before the call goes upstream.
 */
function moneySchema(tool: CatalogTool): Record<string, unknown> {
  const base = tool.input_schema;
  const stated = tool.money?.amount.stated;
  const statedName = stated ? tool.money!.amount.pointer.slice(1) : null;
  return {
    ...base,
    required: [
      ...((base.required as string[] | undefined) ?? []),
      ...(statedName ? [statedName] : []),
      PAYMENT_ARGUMENT,
    ],
    properties: {
      ...((base.properties as Record<string, unknown> | undefined) ?? {}),
      ...(statedName ? { [statedName]: stated } : {}),
      [PAYMENT_ARGUMENT]: PaymentArgument,
    },
  };
}

function providerTool(server: CatalogServer, tool: CatalogTool): ToolSpec {
  return {
    name: `${server.id}.${tool.name}`,
    serverId: server.id,
    description: tool.moves_money
      ? `${tool.description} Paid from the wallet gateway_payment.wallet_id names, as one spend attempt.`
      : tool.description,
    movesMoney: tool.moves_money,
    // A money tool's call is a wallet spend attempt of the attempt engine (api/flows/provider-money-call.ts).
    attempt: tool.moves_money,
    inputSchema: tool.moves_money ? moneySchema(tool) : tool.input_schema,
    dispatch: { kind: 'provider', server, tool },
  };
}

/** A provider's tools a session publishes, built once: the catalog is data loaded at start. */
const PROVIDER_SPECS = new Map(
  catalogServers().map((server) => [server.id, server.tools.map((tool) => providerTool(server, tool))]),
);
const providerTools = (server: CatalogServer): ToolSpec[] => PROVIDER_SPECS.get(server.id) ?? [];

const GATEWAY_SPECS: ToolSpec[] = GATEWAY_TOOLS.map((tool) => ({
  name: tool.name,
  serverId: GATEWAY_SERVER_ID,
  description: tool.description,
  movesMoney: tool.movesMoney,
  attempt: tool.attempt,
  inputSchema: tool.inputSchema,
  dispatch: { kind: 'gateway', operation: tool.operation },
}));

const CARD_SPECS: ToolSpec[] = CARD_TOOLS.map((tool) => ({
  name: tool.name,
  serverId: CARDS_SERVER_ID,
  description: tool.description,
  movesMoney: false,
  attempt: false,
  inputSchema: tool.inputSchema,
  dispatch: { kind: 'cards', operation: tool.operation },
}));

/** The built-in servers' ids: no tenant tool server or generated server may take one. */
export const BUILT_IN_SERVER_IDS: readonly string[] = [GATEWAY_SERVER_ID, CARDS_SERVER_ID];

/** The tools of one server, or undefined when no such server exists. */
export function toolsOfServer(serverId: string): ToolSpec[] | undefined {
  if (serverId === GATEWAY_SERVER_ID) return GATEWAY_SPECS;
  if (serverId === CARDS_SERVER_ID) return CARD_SPECS;
  const server = catalogServer(serverId);
  return server ? providerTools(server) : undefined;
}

/** A tool by its name among a session's servers; undefined when none of them publishes it. */
export function findTool(servers: string[], name: string): ToolSpec | undefined {
  const dot = name.indexOf('.');
  if (dot <= 0) return undefined;
  const serverId =
    name.startsWith(`${GATEWAY_SERVER_ID}.`) || GATEWAY_SPECS.some((t) => t.name === name)
      ? GATEWAY_SERVER_ID
      : name.slice(0, dot);
  if (!servers.includes(serverId)) return undefined;
  return toolsOfServer(serverId)?.find((tool) => tool.name === name);
}

/** Every server the registry knows, gateway first: what discovery ranks over. */
export function allTools(): ToolSpec[] {
  return [...GATEWAY_SPECS, ...catalogServers().flatMap(providerTools)];
}

/** Server ids a session names that are neither the gateway nor a catalog provider: tenant tool server slugs. */
const tenantIds = (servers: string[]) =>
  servers.filter((id) => !BUILT_IN_SERVER_IDS.includes(id) && !catalogServer(id));

/**
 * Every tool of a session's servers, tenant tool servers and the project's generated servers included
 * (they live in PostgreSQL), in server order. A session names only its own project's generated servers:
 * opening it checked them.
 */
export async function resolveSessionTools(
  db: CommonQueryMethods,
  environment: 'live' | 'test',
  servers: string[],
): Promise<ToolSpec[]> {
  const slugs = tenantIds(servers);
  const [tenant, generated] =
    slugs.length > 0
      ? await Promise.all([publishedToolServers(db, environment, slugs), publishedGenerated(db, slugs)])
      : [[], new Map()];
  return servers.flatMap(
    (id) =>
      toolsOfServer(id) ??
      generated.get(id)?.tools ??
      tenantToolSpecs(tenant.find((s) => s.slug === id) ?? ({ tools: [] } as never)),
  );
}

/** A tool by its name among a session's servers, tenant tool servers included. */
export async function findSessionTool(
  db: CommonQueryMethods,
  environment: 'live' | 'test',
  servers: string[],
  name: string,
): Promise<ToolSpec | undefined> {
  const found = findTool(servers, name);
  if (found) return found;
  const dot = name.indexOf('.');
  const slug = dot > 0 ? name.slice(0, dot) : '';
  if (!slug || !tenantIds(servers).includes(slug)) return undefined;
  const [generated, [server]] = await Promise.all([
    publishedGenerated(db, [slug]),
    publishedToolServers(db, environment, [slug]),
  ]);
  const own = generated.get(slug);
  if (own) return own.tools.find((tool) => tool.name === name);
  return server ? tenantToolSpecs(server).find((tool) => tool.name === name) : undefined;
}
