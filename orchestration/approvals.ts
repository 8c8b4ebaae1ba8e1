// Approval holds from outside their workflow: a person's decision is an update to `approval/<id>`, answered
// with the approval as the workflow's activity left it; the operator's sweep runs as a bounded workflow.
import type { ApprovalView } from '../domain/approvals/view';
import { decideUpdate } from '../workflows/approval-messages';
import { workflowIds } from '../workflows/ids';
import { runWorkflowBounded } from './bounded';
import { update, type Orchestrator } from './temporal';

export function decideApproval(o: Orchestrator, approvalId: string, decision: { approve: boolean; reason: string | null; decidedBy: string }): Promise<ApprovalView> {
  return update(o, workflowIds.approval(approvalId), decideUpdate, decision);
}

/** Runs the sweep that expires overdue approvals now (it also runs every minute on a schedule). */
export function sweepApprovalsNow(o: Orchestrator, requestId: string): Promise<unknown> {
  return runWorkflowBounded(o, 'approvalSweep', { workflowId: `${workflowIds.approvalSweep()}/${requestId}`, args: [], timeoutMs: 15_000 }, 'the approval sweep');
}
