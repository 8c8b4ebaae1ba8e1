// Approval holds from outside their workflow: a person's decision is an update to `approval/<id>`, answered
// with the approval as the workflow's activity left it; the operator's sweep runs as a bounded workflow.
import type { ApprovalView } from '../contracts/approval-view';
import type { approvalHold, ApprovalHoldInput } from '../workflows/approval-hold';
import { decideUpdate } from '../contracts/approval-messages';
import { workflowIds } from '../contracts/workflow-ids';
import { SEARCH_ATTRIBUTES } from '../contracts/search-attributes';
import { runWorkflowBounded } from './bounded';
import { isAlreadyStarted } from './errors';
import { handle, start, type Orchestrator } from './temporal';

/** Starts the hold that waits for a decision or its expiry; a retried start finds the running one. */
export async function startApprovalHold(o: Orchestrator, input: ApprovalHoldInput): Promise<void> {
  try {
    await start<typeof approvalHold>(o, 'approvalHold', {
      workflowId: workflowIds.approval(input.approvalId),
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      args: [input],
      typedSearchAttributes: [
        { key: SEARCH_ATTRIBUTES.OrgId, value: input.orgId },
        { key: SEARCH_ATTRIBUTES.ProjectId, value: input.projectId },
        { key: SEARCH_ATTRIBUTES.Environment, value: input.environment },
      ],
    });
  } catch (error) {
    if (!isAlreadyStarted(error)) throw error;
  }
}

// Every decision of one approval is the same Temporal update id: while a decision is being recorded,
// a racing one is joined to it by the server and gets its outcome, instead of being refused before the
// row says what won.
const DECIDE_UPDATE_ID = 'decide';

export function decideApproval(
  o: Orchestrator,
  approvalId: string,
  decision: { approve: boolean; reason: string | null; decidedBy: string },
): Promise<ApprovalView> {
  return handle(o, workflowIds.approval(approvalId)).executeUpdate(decideUpdate, {
    updateId: DECIDE_UPDATE_ID,
    args: [decision],
  });
}

/** Runs the sweep that expires overdue approvals now (it also runs every minute on a schedule). */
export function sweepApprovalsNow(o: Orchestrator, requestId: string): Promise<unknown> {
  return runWorkflowBounded(
    o,
    'approvalSweep',
    { workflowId: `${workflowIds.approvalSweep()}/${requestId}`, args: [], timeoutMs: 15_000 },
    'the approval sweep',
  );
}
