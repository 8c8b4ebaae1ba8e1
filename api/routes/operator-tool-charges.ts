// Operator-only (service credential): the paid calls of every tenant's tool servers, held ones by default,
// and their resolution by a named operator (x-service-user, recorded as `user:<name>` on the charge, in its
// audit trail and its event), through the same resolve path as the tenant's route and the console.
import { ApiError, notFound } from '../../domain/errors';
import { findCharge, listChargesForOperator, presentCharge } from '../../domain/tool-servers/charge-list';
import { ErrorEnvelope } from '../../schema/http/common';
import {
  OperatorToolChargeListQuery,
  OperatorToolChargeParams,
  ToolCharge,
  ToolChargeList,
  ToolChargeResolve,
} from '../../schema/http/mcp-server-charges';
import { resolveHeldCharge } from '../flows/tool-charge-resolution';
import { route, type AnyRoute } from '../route';

const tags = ['Operator'];

export const operatorToolChargeRoutes: AnyRoute[] = [
  route({
    method: 'get',
    path: '/v1/ops/tool-charges',
    auth: 'operator',
    scope: null,
    tags,
    operationId: 'listToolChargesForOperator',
    summary: "Tenants' paid tool calls, newest first: the uncertain ones unless `status` says otherwise",
    query: OperatorToolChargeListQuery,
    responses: { 200: { description: 'A page of charges', schema: ToolChargeList } },
    async handler({ deps, query }) {
      const rows = await listChargesForOperator(deps.db, {
        orgId: query.org,
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
    path: '/v1/orgs/:orgId/tool-charges/:id/resolve',
    auth: 'operator',
    scope: null,
    tags,
    operationId: 'resolveToolChargeAsOperator',
    summary:
      "Resolve a paid call whose upstream answer never came, for the tool server's organization (x-service-user names the operator)",
    params: OperatorToolChargeParams,
    body: ToolChargeResolve,
    responses: {
      200: { description: 'The settled charge', schema: ToolCharge },
      202: { description: 'Accepted; the money moves shortly', schema: ToolCharge },
      400: { description: '`invalid_body`, `user_id_required` (no x-service-user)', schema: ErrorEnvelope },
      404: {
        description: "`not_found`: no such charge on the organization's servers",
        schema: ErrorEnvelope,
      },
      409: { description: '`charge_not_uncertain`', schema: ErrorEnvelope },
      503: { description: '`charge_unavailable`', schema: ErrorEnvelope },
    },
    async handler({ deps, principal, params, body }) {
      if (!principal.userId)
        throw new ApiError(400, 'user_id_required', 'Name the resolving person in the x-service-user header');
      const row = await findCharge(deps.db, params.id, params.orgId);
      if (!row) throw notFound('Charge');
      const resolved = await resolveHeldCharge(deps, row, {
        outcome: body.outcome,
        resolvedBy: `user:${principal.userId}`,
      });
      return { status: resolved.settled ? 200 : 202, body: presentCharge(resolved.charge) };
    },
  }),
];
