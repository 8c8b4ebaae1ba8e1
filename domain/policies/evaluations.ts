// Reading the evaluation log: one row per decision, newest first, filterable by agent, tool and decision.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';

export const evaluationRow = z.object({
  id: z.string(),
  evaluated_at: z.string(),
  agent_id: z.string(),
  tool_name: z.string(),
  rule_name: z.string().nullable(),
  rule_id: z.string().nullable(),
  decision: z.enum(['allow', 'deny']),
  denial_reason: z.string().nullable(),
  approval_id: z.string().nullable(),
});
export type EvaluationRow = z.infer<typeof evaluationRow>;

export async function listEvaluations(
  db: CommonQueryMethods,
  orgId: string,
  projectId: string,
  filter: {
    agentId?: string;
    toolName?: string;
    decision?: 'allow' | 'deny';
    limit: number;
    before?: string;
  },
): Promise<EvaluationRow[]> {
  const where = [sql.fragment`org_id = ${orgId}`, sql.fragment`project_id = ${projectId}`];
  if (filter.agentId) where.push(sql.fragment`agent_id = ${filter.agentId}`);
  if (filter.toolName) where.push(sql.fragment`tool_name = ${filter.toolName}`);
  if (filter.decision) where.push(sql.fragment`decision = ${filter.decision}`);
  if (filter.before) where.push(sql.fragment`id < ${filter.before}`);
  const rows = await db.any(sql.type(evaluationRow)`
    SELECT id, evaluated_at, agent_id, tool_name, rule_name, rule_id, decision, denial_reason, approval_id
    FROM policy_evaluations WHERE ${sql.join(where, sql.fragment` AND `)} ORDER BY id DESC LIMIT ${filter.limit}`);
  return [...rows];
}
