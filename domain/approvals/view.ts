// The Approval resource as the API shows it (and as workflows pass it around): plain JSON.
import type { ApprovalRow } from './approvals';

export interface ApprovalView {
  id: string;
  org_id: string;
  project_id: string | null;
  agent_id: string;
  session_id: string | null;
  matched_rule_id: string | null;
  matched_rule_name: string | null;
  tool_name: string;
  tool_input: Record<string, unknown>;
  status: ApprovalRow['status'];
  created_at: string;
  expires_at: string;
  decided_at: string | null;
  decided_by: string | null;
  decision_reason: string | null;
  executed_at: string | null;
  execution_result: Record<string, unknown> | null;
}

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
