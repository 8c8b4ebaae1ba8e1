// The Approval resource as the API shows it, built from its row.
import type { ApprovalView } from '../../contracts/approval-view';
import type { ApprovalRow } from './approvals';

export function approvalView(row: ApprovalRow): ApprovalView {
  return {
    id: row.id,
    org_id: row.org_id,
    project_id: row.project_id,
    agent_id: row.agent_id,
    session_id: row.session_id,
    matched_rule_id: row.matched_rule_id,
    matched_rule_name: row.matched_rule_name,
    tool_name: row.tool_name,
    tool_input: row.tool_input,
    status: row.status,
    created_at: row.created_at,
    expires_at: row.expires_at,
    decided_at: row.decided_at,
    decided_by: row.decided_by,
    decision_reason: row.decision_reason,
    executed_at: row.executed_at,
    execution_result: row.execution_result,
  };
}

export function approvalStatusView(row: ApprovalRow) {
  return {
    approval_id: row.id,
    approval_status: row.status,
    tool_name: row.tool_name,
    created_at: row.created_at,
    expires_at: row.expires_at,
    decided_at: row.decided_at,
    decided_by: row.decided_by,
    decision_reason: row.decision_reason,
    executed_at: row.executed_at,
    execution_result: row.execution_result,
  };
}
