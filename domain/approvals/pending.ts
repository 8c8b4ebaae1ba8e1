// The approval queue as operators see it: pending approvals across organizations (or one), each with
// the call it holds (tool, amount, payee) and the policy decision that held it. Read-only.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';

const pendingRow = z.object({
  id: z.string(),
  org_id: z.string(),
  project_id: z.string().nullable(),
  agent_id: z.string(),
  tool_name: z.string(),
  amount_minor: z.string().nullable(),
  currency: z.string().nullable(),
  payee: z.string().nullable(),
  rule_id: z.string().nullable(),
  rule_name: z.string().nullable(),
  rule_type: z.string().nullable(),
  reason: z.string().nullable(),
  created_at: z.string(),
  expires_at: z.string(),
});
export type PendingApproval = z.infer<typeof pendingRow>;

/** Oldest first, since the oldest is closest to expiring unanswered; `limit` keeps the page bounded. */
export async function listPendingApprovals(
  db: CommonQueryMethods,
  filter: { orgId?: string; limit: number },
): Promise<PendingApproval[]> {
  const org = filter.orgId ? sql.fragment`AND a.org_id = ${filter.orgId}` : sql.fragment``;
  const rows = await db.any(sql.type(pendingRow)`
    SELECT a.id, a.org_id, a.project_id, a.agent_id, a.tool_name,
      a.tool_input->>'amount_minor' AS amount_minor, a.tool_input->>'currency' AS currency,
      coalesce(a.tool_input->>'recipient', a.tool_input->>'payee') AS payee,
      a.matched_rule_id AS rule_id, a.matched_rule_name AS rule_name, e.rule_type,
      coalesce(e.denial_reason, a.tool_input->>'reason') AS reason, a.created_at, a.expires_at
    FROM approvals a
    LEFT JOIN LATERAL (
      SELECT rule_type, denial_reason FROM policy_evaluations p
      WHERE p.org_id = a.org_id AND p.approval_id = a.id ORDER BY p.evaluated_at LIMIT 1
    ) e ON true
    WHERE a.status = 'pending' AND a.expires_at > now() ${org}
    ORDER BY a.created_at, a.id
    LIMIT ${filter.limit}`);
  return [...rows];
}
