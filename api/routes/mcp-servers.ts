// Tenant tool servers: validate an upstream (a real MCP handshake, nothing stored), register one with its
// priced tools (the handshake again, so each tool's input schema is the upstream's own), list, read, update
// the listing, price or pause a tool, delete, and sweep the accrued platform fees. The spec's scope table has
// no entry for these, so they are `unmapped` like payment links.
import { ApiError } from '../../domain/errors';
import { catalogServer } from '../../domain/providers/catalog';
import { sweepPlatformFees } from '../../domain/tool-servers/fees';
import { priceToMinor } from '../../domain/tool-servers/money';
import { presentToolServer } from '../../domain/tool-servers/present';
import {
  createToolServer,
  deleteToolServer,
  getToolServer,
  listToolServers,
  newToolServerId,
  updateServerTool,
  updateToolServer,
} from '../../domain/tool-servers/servers';
import { ownSchema, PAYMENT_ARGUMENT } from '../../domain/tool-servers/tool-specs';
import { sealUpstreamAuth } from '../../domain/tool-servers/upstream-auth';
import { GATEWAY_SERVER_ID } from '../../domain/tools/gateway-tools';
import { keyServiceFor } from '../../domain/vault/select';
import type { Currency } from '../../domain/wallets/currencies';
import { handshake, type Handshake } from '../../providers/mcp-client/upstream';
import { ErrorEnvelope } from '../../schema/http/common';
import {
  FeeSweep,
  McpServer,
  McpServerCreate,
  McpServerDeleted,
  McpServerList,
  McpServerParams,
  McpServerUpdate,
  McpServerValidate,
  McpServerValidation,
  McpToolParams,
  McpToolUpdate,
  type McpServerCreateBody,
  type McpServerUpdateBody,
  type McpServerValidateBody,
  type McpToolUpdateBody,
} from '../../schema/http/mcp-servers';
import type { AppDeps } from '../deps';
import type { Principal } from '../principal';
import { route, type AnyRoute } from '../route';
import { compile } from '../validation';

const tags = ['Tenant tool servers'];
/** How long a validate or create handshake may take before it is reported `timed_out`. */
export const HANDSHAKE_TIMEOUT_MS = 5_000;

const scopeOf = (p: Principal) => ({ orgId: p.orgId, projectId: p.projectId, environment: p.environment });
const envelope = (description: string) => ({ description, schema: ErrorEnvelope });
const notFound = envelope("`not_found`: no such tool server in the caller's project");
const badRequest = envelope('`invalid_body` / `invalid_params` (details.issues)');

async function shake(
  deps: AppDeps,
  principal: Principal,
  url: string,
  auth: { header: string; value: string } | null,
): Promise<Handshake> {
  // The schema's `uri` format admits URLs the WHATWG parser refuses (a port above 65535): refused here.
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    parsed = null;
  }
  if (!parsed || !['http:', 'https:'].includes(parsed.protocol))
    throw new ApiError(400, 'invalid_body', 'upstream_url is not a usable http(s) URL', {
      issues: [{ path: '/upstream_url', message: 'must be an http(s) URL', keyword: 'format' }],
    });
  const found = await handshake({
    url,
    auth,
    environment: principal.environment,
    timeoutMs: Math.min(HANDSHAKE_TIMEOUT_MS, deps.config.providerTimeoutMs),
  });
  if (!found.ok && found.failure.code === 'forbidden_address')
    throw new ApiError(400, 'upstream_url_forbidden', found.failure.message, {
      issues: [{ path: '/upstream_url', message: found.failure.message, keyword: 'format' }],
    });
  return found;
}

const priceIssue = (index: number, currency: string) =>
  new ApiError(400, 'invalid_body', `tools/${index}/price is not a ${currency} amount`, {
    issues: [
      {
        path: `/tools/${index}/price`,
        message: `must be a decimal ${currency} amount with at most its minor-unit decimals`,
        keyword: 'format',
      },
    ],
  });

export const mcpServerRoutes: AnyRoute[] = [
  route<McpServerValidateBody, unknown, Record<string, string>, 'key'>({
    method: 'post',
    path: '/v1/mcp-servers/validate',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'validateMcpServer',
    summary: 'Check an upstream MCP server: handshake and tool list, nothing stored',
    description:
      'Answers 200 whatever the upstream did: `ok: true` with its tools, protocol version and latency, or `ok: false` with `failure.code` (`unreachable`, `not_mcp`, `auth_refused`, `timed_out`).',
    body: McpServerValidate,
    responses: {
      200: { description: 'What the handshake found', schema: McpServerValidation },
      400: envelope(
        '`invalid_body`; `upstream_url_forbidden` (live mode: the host resolves to a loopback, private or reserved address)',
      ),
    },
    async handler({ deps, principal, body }) {
      return { body: await shake(deps, principal, body.upstream_url, body.auth ?? null) };
    },
  }),
  route<McpServerCreateBody, unknown, Record<string, string>, 'key'>({
    method: 'post',
    path: '/v1/mcp-servers',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'createMcpServer',
    summary: 'Register a tool server with priced tools',
    description:
      "The upstream is called (handshake and tool list) and each named tool must be one it lists; its input schema is the upstream's. `upstream_auth.value` is sealed in the vault and never returned. The tenant's share of each paid call is credited to `payout_wallet_id`, the platform fee accrues in `fee_wallet_id`.",
    body: McpServerCreate,
    responses: {
      201: { description: 'The server', schema: McpServer },
      400: envelope('`invalid_body` (a price beyond the currency, a tool twice), `upstream_url_forbidden`'),
      404: envelope('`consumer_not_found`'),
      409: envelope('`slug_conflict`: the slug is taken (or names a catalog provider)'),
      422: envelope(
        '`upstream_unavailable` (details.failure: the handshake failed), `tool_not_upstream` (details.tool), `tool_argument_reserved`, `tool_schema_unusable`',
      ),
    },
    async handler({ deps, principal, body }) {
      const currency = (body.currency ?? 'BRL') as Currency;
      const prices = body.tools.map((tool, index) => {
        const minor = priceToMinor(tool.price, currency);
        if (minor === null) throw priceIssue(index, currency);
        return minor;
      });
      const names = body.tools.map((t) => t.tool_name);
      const twice = names.find((name, i) => names.indexOf(name) !== i);
      if (twice)
        throw new ApiError(400, 'invalid_body', `The tool "${twice}" is listed twice`, {
          issues: [{ path: '/tools', message: `"${twice}" appears twice`, keyword: 'uniqueItems' }],
        });
      if (body.slug === GATEWAY_SERVER_ID || catalogServer(body.slug))
        throw new ApiError(409, 'slug_conflict', `The slug "${body.slug}" is taken`, { slug: body.slug });
      const found = await shake(deps, principal, body.upstream_url, body.upstream_auth ?? null);
      if (!found.ok)
        throw new ApiError(
          422,
          'upstream_unavailable',
          `The upstream handshake failed: ${found.failure.code}`,
          {
            failure: found.failure,
          },
        );
      const tools = body.tools.map((tool, index) => {
        const upstream = found.tools.find((t) => t.name === tool.tool_name);
        if (!upstream)
          throw new ApiError(422, 'tool_not_upstream', `The upstream lists no tool "${tool.tool_name}"`, {
            tool: tool.tool_name,
            upstream_tools: found.tools.map((t) => t.name),
          });
        const properties = (upstream.input_schema.properties ?? {}) as Record<string, unknown>;
        if (Object.prototype.hasOwnProperty.call(properties, PAYMENT_ARGUMENT))
          throw new ApiError(
            422,
            'tool_argument_reserved',
            `The upstream tool "${tool.tool_name}" takes an argument named ${PAYMENT_ARGUMENT}, which the gateway reserves`,
            { tool: tool.tool_name },
          );
        try {
          compile(ownSchema(upstream.input_schema), 'body');
        } catch {
          // A schema the gateway cannot check arguments against would fail every call: refused now.
          throw new ApiError(
            422,
            'tool_schema_unusable',
            `The upstream tool "${tool.tool_name}" has an input schema the gateway cannot validate against`,
            { tool: tool.tool_name },
          );
        }
        return {
          name: tool.tool_name,
          description: tool.description ?? upstream.description,
          inputSchema: upstream.input_schema,
          priceMinor: prices[index],
        };
      });
      const id = newToolServerId();
      const auth = body.upstream_auth
        ? {
            header: body.upstream_auth.header,
            sealed: await sealUpstreamAuth(
              keyServiceFor(deps.config.vault),
              principal,
              id,
              body.upstream_auth.value,
            ),
          }
        : null;
      const server = await createToolServer(deps.db, scopeOf(principal), {
        id,
        slug: body.slug,
        name: body.name,
        description: body.description ?? null,
        overviewMd: body.overview_md ?? null,
        category: body.category ?? null,
        upstreamUrl: body.upstream_url,
        consumerId: body.consumer_id ?? null,
        currency,
        platformFeeBps: body.platform_fee_bps,
        auth,
        tools,
      });
      return { status: 201, body: presentToolServer(server) };
    },
  }),
  route<unknown, unknown, Record<string, string>, 'key'>({
    method: 'get',
    path: '/v1/mcp-servers',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'listMcpServers',
    summary: "The project's tool servers, newest first",
    responses: { 200: { description: 'The servers', schema: McpServerList } },
    async handler({ deps, principal }) {
      return {
        body: { mcp_servers: (await listToolServers(deps.db, scopeOf(principal))).map(presentToolServer) },
      };
    },
  }),
  route<unknown, unknown, Record<string, string>, 'key'>({
    method: 'post',
    path: '/v1/mcp-servers/platform-fees/sweep',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'sweepMcpServerPlatformFees',
    summary: "Move the organization's accrued platform fees to its platform-fee wallet now",
    description:
      "Each tool server of the organization moves its fee wallet's available balance to the organization's platform-fee wallet of that currency. Idempotent: what was moved is gone, so a repeat moves only what accrued since. A Temporal schedule runs the same sweep hourly.",
    responses: { 200: { description: 'What moved', schema: FeeSweep } },
    async handler({ deps, principal }) {
      return { body: { moved: await sweepPlatformFees(deps.db, principal.orgId) } };
    },
  }),
  route<unknown, unknown, { id: string }, 'key'>({
    method: 'get',
    path: '/v1/mcp-servers/:id',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'getMcpServer',
    summary: 'Retrieve a tool server',
    params: McpServerParams,
    responses: { 200: { description: 'The server', schema: McpServer }, 400: badRequest, 404: notFound },
    async handler({ deps, principal, params }) {
      return { body: presentToolServer(await getToolServer(deps.db, scopeOf(principal), params.id)) };
    },
  }),
  route<McpServerUpdateBody, unknown, { id: string }, 'key'>({
    method: 'patch',
    path: '/v1/mcp-servers/:id',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'updateMcpServer',
    summary: "Update a tool server's listing, or pause (`active: false`) and resume it",
    params: McpServerParams,
    body: McpServerUpdate,
    responses: { 200: { description: 'The server', schema: McpServer }, 400: badRequest, 404: notFound },
    async handler({ deps, principal, params, body }) {
      const server = await updateToolServer(deps.db, scopeOf(principal), params.id, {
        name: body.name,
        description: body.description,
        overviewMd: body.overview_md,
        category: body.category,
        active: body.active,
      });
      return { body: presentToolServer(server) };
    },
  }),
  route<unknown, unknown, { id: string }, 'key'>({
    method: 'delete',
    path: '/v1/mcp-servers/:id',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'deleteMcpServer',
    summary: 'Delete a tool server',
    description:
      'Removes its priced tools and its listing; calls already authorized finish at their price; settled charges stay in the ledger.',
    params: McpServerParams,
    responses: { 200: { description: 'Deleted', schema: McpServerDeleted }, 400: badRequest, 404: notFound },
    async handler({ deps, principal, params }) {
      await deleteToolServer(deps.db, scopeOf(principal), params.id);
      return { body: { id: params.id, deleted: true } };
    },
  }),
  route<McpToolUpdateBody, unknown, { id: string; tool: string }, 'key'>({
    method: 'patch',
    path: '/v1/mcp-servers/:id/tools/:tool',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'updateMcpServerTool',
    summary: "Change a tool's price or pause it",
    description:
      'A new price applies to calls started after the change; a call carries the price it was authorized at.',
    params: McpToolParams,
    body: McpToolUpdate,
    responses: {
      200: { description: 'The server', schema: McpServer },
      400: badRequest,
      404: envelope('`not_found` (server), `tool_not_found`'),
    },
    async handler({ deps, principal, params, body }) {
      const scope = scopeOf(principal);
      let priceMinor: bigint | undefined;
      if (body.price !== undefined) {
        const server = await getToolServer(deps.db, scope, params.id);
        const minor = priceToMinor(body.price, server.currency as Currency);
        if (minor === null)
          throw new ApiError(400, 'invalid_body', `price is not a ${server.currency} amount`, {
            issues: [
              { path: '/price', message: `must be a decimal ${server.currency} amount`, keyword: 'format' },
            ],
          });
        priceMinor = minor;
      }
      const server = await updateServerTool(deps.db, scope, params.id, params.tool, {
        priceMinor,
        active: body.active,
      });
      return { body: presentToolServer(server) };
    },
  }),
];
