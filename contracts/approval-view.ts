// The Approval resource as the API shows it and as workflows pass it around: plain JSON.

export const APPROVAL_STATUSES = ['pending', 'approved', 'denied', 'expired', 'execution_failed'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

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
  status: ApprovalStatus;
  created_at: string;
  expires_at: string;
  decided_at: string | null;
  decided_by: string | null;
  decision_reason: string | null;
  executed_at: string | null;
  execution_result: Record<string, unknown> | null;
}
