// The one decide path for a held call, shared by the operator API route and the operator console: it sends
// the decision to the approval's hold workflow and turns every way that can be refused into an ApiError.
// Temporal's answers are told apart by error type and failure type, never by message text.
import { findApproval, type ApprovalRow } from '../../domain/approvals/approvals';
import type { ApprovalView } from '../../contracts/approval-view';
import { ApiError, notFound } from '../../domain/errors';
import { decideApproval as sendDecision } from '../../orchestration/approvals';
import { isWorkflowMissing, updateFailure } from '../../orchestration/errors';
import { MoneyFailure } from '../../contracts/money-failures';
import type { AppDeps } from '../deps';

export interface ApprovalDecision {
  orgId: string;
  approvalId: string;
  approve: boolean;
  reason: string | null;
  /** Who decides, as recorded in decided_by (`user:<name>`). */
  actor: string;
}

function refusal(row: Pick<ApprovalRow, 'status'>): ApiError {
  if (row.status === 'expired')
    return new ApiError(410, 'approval_expired', 'The approval expired before a decision', {
      status: row.status,
    });
  return new ApiError(409, 'approval_not_pending', `The approval is already ${row.status}`, {
    status: row.status,
  });
}

const expired = () =>
  new ApiError(410, 'approval_expired', 'The approval expired before a decision', { status: 'expired' });

/** The answer is this caller's own decision only if it recorded what this caller asked for. */
function isOwn(decided: ApprovalView, decision: ApprovalDecision): boolean {
  return (
    decided.decided_by === decision.actor &&
    decided.status === (decision.approve ? 'approved' : 'denied') &&
    (decided.decision_reason ?? null) === decision.reason
  );
}

/** Decides a pending approval of the organization; refused with 404, 409 approval_not_pending, 410 or 503. */
export async function decideApproval(
  deps: Pick<AppDeps, 'db' | 'temporal'>,
  decision: ApprovalDecision,
): Promise<ApprovalView> {
  const row = await findApproval(deps.db, decision.orgId, decision.approvalId);
  if (!row) throw notFound('Approval');
  if (row.status !== 'pending') throw refusal(row);
  let decided: ApprovalView;
  try {
    decided = await sendDecision(deps.temporal, row.id, {
      approve: decision.approve,
      reason: decision.reason,
      decidedBy: decision.actor,
    });
  } catch (error) {
    const failure = updateFailure(error);
    if (failure?.type === MoneyFailure.ApprovalExpired) throw expired();
    // Refused by the hold (already decided), or the hold has closed: the row says what happened.
    if (failure || isWorkflowMissing(error)) {
      const current = await findApproval(deps.db, decision.orgId, decision.approvalId);
      if (current && current.status !== 'pending') throw refusal(current);
      throw new ApiError(503, 'approval_unavailable', "The approval's hold is not running; retry shortly");
    }
    throw error;
  }
  // The activity reports the row as it stands: a concurrent decision or the sweep may have won.
  if (!isOwn(decided, decision)) throw refusal(decided);
  return decided;
}
