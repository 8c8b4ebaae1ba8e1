// The paid calls of a tenant's tool server, for the project that owns it: the list (cursor pagination,
// filtered by status) and the resolution of a call whose upstream answer never came, from what the tenant's
// upstream knows. Another project's or organization's server is 404. Unmapped scope, like the other
// tool-server routes.
import { actorOf, type Principal } from '../principal';
import { ApiError, notFound } from '../../domain/errors';
import { findServerCharges, listServerCharges, presentCharge } from '../../domain/tool-servers/charge-list';
import { chargeId } from '../../domain/tool-servers/charge-resolution';
import { getToolServer } from '../../domain/tool-servers/servers';
import { ErrorEnvelope } from '../../schema/http/common';
import { McpServerParams } from '../../schema/http/mcp-servers';
import {
  ToolCharge,
  ToolChargeList,
  ToolChargeListQuery,
  ToolChargeParams,
  ToolChargeResolve,
} from '../../schema/http/mcp-server-charges';
import { resolveHeldCharge } from '../flows/tool-charge-resolution';
import { route, type AnyRoute } from '../route';

const tags = ['Tenant tool servers'];
const scopeOf = (p: Principal) => ({ orgId: p.orgId, projectId: p.projectId, environment: p.environment });
const envelope = (description: string) => ({ description, schema: ErrorEnvelope });

export const mcpServerChargeRoutes: AnyRoute[] = [
  route({
    method: 'get',
    path: '/v1/mcp-servers/:id/charges',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'listMcpServerCharges',
    summary: "A tool server's paid calls, newest first",
    description:
      'Each charge with its attempt id, tool, price, the calling project (never its arguments), status and, once resolved, who resolved it and how. `status=uncertain` lists the calls whose upstream answer never came: their price stays held until resolved.',
    params: McpServerParams,
    query: ToolChargeListQuery,
    responses: {
      200: { description: 'A page of charges', schema: ToolChargeList },
      400: envelope('`invalid_params` / `invalid_query` (details.issues)'),
      404: envelope("`not_found`: no such tool server in the caller's project"),
    },
    async handler({ deps, principal, params, query }) {
      const server = await getToolServer(deps.db, scopeOf(principal), params.id);
      const rows = await listServerCharges(deps.db, server.id, {
        status: query.status,
        limit: query.limit + 1,
        startingAfter: query.starting_after,
      });
      return {
        body: {
          tool_charges: rows.slice(0, query.limit).map(presentCharge),
          has_more: rows.length > query.limit,
        },
      };
    },
  }),
  route({
    method: 'post',
    path: '/v1/mcp-servers/:id/charges/:attempt_id/resolve',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'resolveMcpServerCharge',
    summary: 'Resolve a paid call whose upstream answer never came',
    description:
      "From what the upstream's own records say: `succeeded` debits the held price and credits the tenant's share and the platform fee, `failed` releases it. Answers the settled charge (200), or 202 with the charge as it stands when the money has not moved within the wait (it will; list the charges to see it). Resolving again with the same outcome answers the settled charge; the other outcome is 409.",
    params: ToolChargeParams,
    body: ToolChargeResolve,
    responses: {
      200: { description: 'The settled charge', schema: ToolCharge },
      202: { description: 'Accepted; the money moves shortly', schema: ToolCharge },
      400: envelope('`invalid_body` / `invalid_params` (details.issues)'),
      404: envelope("`not_found`: no such tool server in the caller's project, or no such charge on it"),
      409: envelope(
        '`charge_not_uncertain` (details.status, details.resolved_outcome): settled, resolved the other way, or its upstream call is still under way; `charge_ambiguous` (details.ids): callers of two organizations used this attempt id, name the charge by its `id`',
      ),
      503: envelope("`charge_unavailable`: the charge's workflow is not running; retry"),
    },
    async handler({ deps, principal, params, body }) {
      const server = await getToolServer(deps.db, scopeOf(principal), params.id);
      const rows = await findServerCharges(deps.db, server.id, params.attempt_id);
      if (rows.length === 0) throw notFound('Charge');
      if (rows.length > 1)
        throw new ApiError(
          409,
          'charge_ambiguous',
          'Callers of more than one organization used this attempt id; name the charge by its id',
          { ids: rows.map((r) => chargeId(r.seq)) },
        );
      const resolved = await resolveHeldCharge(deps, rows[0], {
        outcome: body.outcome,
        resolvedBy: actorOf(principal),
      });
      return { status: resolved.settled ? 200 : 202, body: presentCharge(resolved.charge) };
    },
  }),
];
