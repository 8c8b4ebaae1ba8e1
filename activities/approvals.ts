// Activities of the approval hold and the sweep: thin calls into domain/approvals (and, for a replayed
// consumer spend's result, the answer its attempt stored).
import { ApplicationFailure } from '@temporalio/activity';
import { decideApproval, expireApproval, findApproval, recordExecution } from '../domain/approvals/approvals';
import { sweepApprovals } from '../domain/approvals/health';
import type { ReplayOutcome } from '../contracts/approval-kinds';
import type { ApprovalView } from '../contracts/approval-view';
import { readStoredAnswer } from '../domain/consumer-payments/attempts';
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
  // The answer a consumer spend stored (its first, as its claimant got it), recorded as its approval's result.
  const storedSpendAnswer = async (orgId: string, attemptId: string): Promise<Record<string, unknown>> => {
    const stored = await readStoredAnswer(deps.db, orgId, attemptId);
    if (!stored) throw new Error(`The attempt ${attemptId} has no stored answer yet`);
    return stored.body;
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
    async recordExecutionActivity(input: Ref & ReplayOutcome): Promise<ApprovalView> {
      const result =
        'storedAnswerOf' in input
          ? await storedSpendAnswer(input.orgId, input.storedAnswerOf.attemptId)
          : input.result;
      return approvalView(await recordExecution(deps.db, input.orgId, input.approvalId, input.ok, result));
    },
    async sweepApprovalsActivity(): Promise<{ expired: number; swept_at: string }> {
      return sweepApprovals(deps.db);
    },
  };
}
