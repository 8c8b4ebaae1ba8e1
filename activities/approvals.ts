// Activities of the approval hold and the sweep: thin calls into domain/approvals.
import { ApplicationFailure } from '@temporalio/activity';
import { decideApproval, expireApproval, findApproval, recordExecution } from '../domain/approvals/approvals';
import { sweepApprovals } from '../domain/approvals/health';
import type { ApprovalView } from '../contracts/approval-view';
import { approvalView } from '../domain/approvals/view';
import type { ActivityDeps } from './deps';

interface Ref {
  orgId: string;
  approvalId: string;
}

export function approvalActivities(deps: ActivityDeps) {
  const read = async ({ orgId, approvalId }: Ref): Promise<ApprovalView> => {
    const row = await findApproval(deps.db, orgId, approvalId);
    if (!row) throw ApplicationFailure.nonRetryable('Approval not found', 'not_found');
    return approvalView(row);
  };
  return {
    readApprovalActivity: read,
    /** Returns the approval after the decision, or as it stands when it had already left pending. */
    async decideApprovalActivity(
      input: Ref & { approve: boolean; reason: string | null; decidedBy: string },
    ): Promise<ApprovalView> {
      const row = await decideApproval(deps.db, input.orgId, input.approvalId, {
        approve: input.approve,
        reason: input.reason,
        decidedBy: input.decidedBy,
      });
      return row ? approvalView(row) : read(input);
    },
    async expireApprovalActivity(input: Ref): Promise<ApprovalView> {
      return approvalView(await expireApproval(deps.db, input.orgId, input.approvalId));
    },
    async recordExecutionActivity(
      input: Ref & { ok: boolean; result: Record<string, unknown> },
    ): Promise<ApprovalView> {
      return approvalView(
        await recordExecution(deps.db, input.orgId, input.approvalId, input.ok, input.result),
      );
    },
    async sweepApprovalsActivity(): Promise<{ expired: number; swept_at: string }> {
      return sweepApprovals(deps.db);
    },
  };
}
