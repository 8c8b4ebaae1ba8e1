// Approvals: read one (and its status) with an API key, the queue's health, and the operator-only decision
// that moves a held call on (the key that asked can never approve it). Also the operator sweep trigger.
import { getApproval } from '../../domain/approvals/approvals';
import { approvalHealth } from '../../domain/approvals/health';
import { approvalStatusView, approvalView } from '../../domain/approvals/view';
import { ApiError } from '../../domain/errors';
import { ErrorEnvelope } from '../../schema/http/common';
import { Approval, ApprovalDecide, ApprovalHealth, ApprovalStatus } from '../../schema/http/execute';
import { sweepApprovalsNow } from '../../orchestration/approvals';
import { decideApproval } from '../flows/approval-decision';
import { route, type AnyRoute } from '../route';

const tags = ['Approvals'];
const notFoundSpec = {
  description: "`not_found`: not in the caller's organization and project",
  schema: ErrorEnvelope,
};

export const approvalRoutes: AnyRoute[] = [
  route({
    method: 'get',
    path: '/v1/approvals/health',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'getApprovalsHealth',
    summary: 'Pending approvals of the project and the last deployment-wide sweep',
    responses: { 200: { description: 'Health', schema: ApprovalHealth } },
    async handler({ deps, principal }) {
      return {
        body: { status: 'ok', ...(await approvalHealth(deps.db, principal.orgId, principal.projectId)) },
      };
    },
  }),
  route({
    method: 'get',
    path: '/v1/approvals/:id',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'getApproval',
    summary: 'Retrieve an approval',
    responses: { 200: { description: 'The approval', schema: Approval }, 404: notFoundSpec },
    async handler({ deps, principal, params }) {
      return {
        body: approvalView(await getApproval(deps.db, principal.orgId, principal.projectId, params.id)),
      };
    },
  }),
  route({
    method: 'get',
    path: '/v1/approvals/:id/status',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'getApprovalStatus',
    summary: 'Poll an approval until it leaves pending',
    responses: { 200: { description: 'Status', schema: ApprovalStatus }, 404: notFoundSpec },
    async handler({ deps, principal, params }) {
      return {
        body: approvalStatusView(await getApproval(deps.db, principal.orgId, principal.projectId, params.id)),
      };
    },
  }),
  route({
    method: 'post',
    path: '/v1/orgs/:orgId/approvals/:id/decide',
    auth: 'operator',
    scope: null,
    tags,
    operationId: 'decideApproval',
    summary: 'Approve or deny a held call (service credential acting for a user in x-service-user)',
    body: ApprovalDecide,
    responses: {
      200: {
        description:
          'The approval after the decision; an approved call is replayed right after (poll its status for executed_at)',
        schema: Approval,
      },
      400: { description: '`invalid_body`, `user_id_required` (no x-service-user)', schema: ErrorEnvelope },
      404: { description: '`not_found`', schema: ErrorEnvelope },
      409: { description: '`approval_not_pending` (details.status)', schema: ErrorEnvelope },
      410: { description: '`approval_expired`', schema: ErrorEnvelope },
      503: {
        description: "`approval_unavailable`: the approval's hold is not running; retry",
        schema: ErrorEnvelope,
      },
    },
    async handler({ deps, principal, params, body }) {
      if (!principal.userId)
        throw new ApiError(400, 'user_id_required', 'Name the deciding person in the x-service-user header');
      const decided = await decideApproval(deps, {
        orgId: params.orgId,
        approvalId: params.id,
        approve: body.decision === 'approve',
        reason: body.reason ?? null,
        actor: `user:${principal.userId}`,
      });
      return { body: decided };
    },
  }),
  route({
    method: 'post',
    path: '/v1/ops/approvals/sweep',
    auth: 'operator',
    scope: null,
    tags: ['Operator'],
    operationId: 'sweepApprovals',
    summary: 'Run the sweep that expires overdue approvals now (it also runs every minute)',
    responses: { 200: { description: '{expired, swept_at}' } },
    async handler({ deps, requestId }) {
      const result = await sweepApprovalsNow(deps.temporal, requestId);
      return { body: result };
    },
  }),
];
