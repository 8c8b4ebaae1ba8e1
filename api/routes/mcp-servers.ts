// Tenant tool servers: validate an upstream (a real MCP handshake, nothing stored), register one with its
// priced tools (the handshake again, so each tool's input schema is the upstream's own), list, read, update
// the listing, price or pause a tool, delete, and sweep the accrued platform fees (paid calls and their
// resolution: mcp-server-charges.ts). The spec's scope table has no entry for these, so they are
// `unmapped` like payment links.
import { ApiError } from '../../domain/errors';
import { sweepPlatformFees } from '../../domain/tool-servers/fees';
import { priceToMinor } from '../../domain/tool-servers/money';
import { presentToolServer } from '../../domain/tool-servers/present';
import {
  deleteToolServer,
  getToolServer,
  listToolServers,
  updateServerTool,
  updateToolServer,
} from '../../domain/tool-servers/servers';
import type { Currency } from '../../contracts/currencies';
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
  PRICE_PATTERN,
  type McpServerCreateBody,
  type McpServerUpdateBody,
  type McpServerValidateBody,
  type McpToolUpdateBody,
} from '../../schema/http/mcp-servers';
import type { Principal } from '../principal';
import { registerToolServer, shake, toolPrices } from '../flows/tool-server-registration';
import { answerOwnRefusals } from '../validation';
import { mcpServerChargeRoutes } from './mcp-server-charges';
import { route, type AnyRoute } from '../route';

const tags = ['Tenant tool servers'];
const scopeOf = (p: Principal) => ({ orgId: p.orgId, projectId: p.projectId, environment: p.environment });
const envelope = (description: string) => ({ description, schema: ErrorEnvelope });
const notFound = envelope("`not_found`: no such tool server in the caller's project");
const badRequest = envelope('`invalid_body` / `invalid_params` (details.issues)');

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
    // A price beyond its currency's decimals keeps the registration's own refusal, with the price named.
    onInputError: (error, _ctx, input) =>
      answerOwnRefusals(
        error,
        (issue) =>
          (issue.keyword === 'if' && issue.path === '/') ||
          (issue.keyword === 'pattern' &&
            /^\/tools\/[0-9]+\/price$/.test(issue.path) &&
            issue.message !== `must match pattern "${PRICE_PATTERN}"`),
        () => toolPrices(input.body as McpServerCreateBody),
      ),
    responses: {
      201: { description: 'The server', schema: McpServer },
      400: envelope('`invalid_body` (a price beyond the currency, a tool twice), `upstream_url_forbidden`'),
      404: envelope("`consumer_not_found`: no consumer with that id in the caller's project"),
      409: envelope('`slug_conflict`: the slug is taken (or names a catalog provider)'),
      422: envelope(
        '`upstream_unavailable` (details.failure: the handshake failed), `tool_not_upstream` (details.tool), `tool_argument_reserved`, `tool_schema_unusable`',
      ),
    },
    async handler({ deps, principal, body }) {
      return registerToolServer(deps, principal, body);
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
  ...mcpServerChargeRoutes,
];
