// The one decide path for a held call, shared by the operator API route and the operator console: it sends
// the decision to the approval's hold workflow and turns every way that can be refused into an ApiError.
// Temporal's answers are told apart by error type and failure type, never by message text.
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { findApproval, type ApprovalRow } from '../../domain/approvals/approvals';
import type { ApprovalView } from '../../domain/approvals/view';
import { ApiError, notFound } from '../../domain/errors';
import { decideUpdate } from '../../workflows/approval-messages';
import { workflowIds } from '../../workflows/ids';
import { MoneyFailure } from '../../workflows/money-failures';
import type { AppDeps } from '../deps';

export interface ApprovalDecision {
  orgId: string;
  approvalId: string;
  approve: boolean;
  reason: string | null;
  /** Who decides, as recorded in decided_by (`user:<name>`). */
  actor: string;
}

// Every decision of one approval is the same Temporal update id: while a decision is being recorded,
// a racing one is joined to it by the server and gets its outcome, instead of being refused before the
// row says what won.
const DECIDE_UPDATE_ID = 'decide';

function refusal(row: Pick<ApprovalRow, 'status'>): ApiError {
  if (row.status === 'expired') return new ApiError(410, 'approval_expired', 'The approval expired before a decision', { status: row.status });
  return new ApiError(409, 'approval_not_pending', `The approval is already ${row.status}`, { status: row.status });
}

const expired = () => new ApiError(410, 'approval_expired', 'The approval expired before a decision', { status: 'expired' });

/** The answer is this caller's own decision only if it recorded what this caller asked for. */
function isOwn(decided: ApprovalView, decision: ApprovalDecision): boolean {
  return decided.decided_by === decision.actor
    && decided.status === (decision.approve ? 'approved' : 'denied')
    && (decided.decision_reason ?? null) === decision.reason;
}

/** Decides a pending approval of the organization; refused with 404, 409 approval_not_pending, 410 or 503. */
export async function decideApproval(deps: Pick<AppDeps, 'db' | 'temporal'>, decision: ApprovalDecision): Promise<ApprovalView> {
  const row = await findApproval(deps.db, decision.orgId, decision.approvalId);
  if (!row) throw notFound('Approval');
  if (row.status !== 'pending') throw refusal(row);
  let decided: ApprovalView;
  try {
    const handle = deps.temporal.client.workflow.getHandle(workflowIds.approval(row.id));
    decided = await handle.executeUpdate(decideUpdate, {
      updateId: DECIDE_UPDATE_ID,
      args: [{ approve: decision.approve, reason: decision.reason, decidedBy: decision.actor }],
    });
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure && error.cause.type === MoneyFailure.ApprovalExpired) throw expired();
    // Refused by the hold (already decided), or the hold has closed: the row says what happened.
    if (error instanceof WorkflowUpdateFailedError || error instanceof WorkflowNotFoundError) {
      const current = await findApproval(deps.db, decision.orgId, decision.approvalId);
      if (current && current.status !== 'pending') throw refusal(current);
      throw new ApiError(503, 'approval_unavailable', 'The approval\'s hold is not running; retry shortly');
    }
    throw error;
  }
  // The activity reports the row as it stands: a concurrent decision or the sweep may have won.
  if (!isOwn(decided, decision)) throw refusal(decided);
  return decided;
}
