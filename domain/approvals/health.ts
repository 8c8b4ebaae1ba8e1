// Approval queue health and the sweep that expires overdue holds whose workflow did not (e.g. lost history).
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabasePool } from '../../runtime/database';
import { recordEvent } from '../events/record';
import { approvalRow, presentEventData } from './approvals';

const healthRow = z.object({
  pending_count: z.number(),
  oldest_pending_age_seconds: z.number().nullable(),
  last_sweep_at: z.string().nullable(),
});

export async function approvalHealth(db: CommonQueryMethods, orgId: string, projectId: string) {
  return db.one(sql.type(healthRow)`
    SELECT count(*)::int AS pending_count,
      floor(extract(epoch FROM now() - min(created_at)))::int AS oldest_pending_age_seconds,
      (SELECT max(swept_at) FROM approval_sweeps) AS last_sweep_at
    FROM approvals WHERE org_id = ${orgId} AND project_id = ${projectId} AND status = 'pending'`);
}

/**
 * Expires pending approvals past their expiry by more than a grace period (the workflow's own timer normally
 * wins), across every tenant, and records the sweep. Deployment-wide by design: it runs as one cron workflow.
 */
export async function sweepApprovals(
  db: DatabasePool,
  graceSeconds = 60,
): Promise<{ expired: number; swept_at: string }> {
  return db.transaction(async (tx) => {
    const rows = await tx.any(sql.type(approvalRow.extend({ environment: z.enum(['live', 'test']) }))`
      WITH expired AS (
        UPDATE approvals SET status = 'expired'
        WHERE id IN (SELECT id FROM approvals WHERE status = 'pending' AND expires_at < now() - make_interval(secs => ${graceSeconds}) ORDER BY expires_at LIMIT 1000 FOR UPDATE SKIP LOCKED)
        RETURNING *)
      SELECT e.id, e.org_id, e.project_id, e.agent_id, e.session_id, e.matched_rule_id, e.matched_rule_name, e.tool_name, e.tool_input, e.kind, e.payload,
        e.status, e.created_at, e.expires_at, e.decided_at, e.decided_by, e.decision_reason, e.executed_at, e.execution_result, p.environment
      FROM expired e JOIN projects p ON p.id = e.project_id`);
    for (const row of rows) {
      await recordEvent(
        tx,
        { orgId: row.org_id, projectId: row.project_id ?? '', environment: row.environment },
        'approval.expired',
        { ...presentEventData(row), expired_by: 'sweep' },
      );
    }
    const swept = await tx.oneFirst(sql.type(z.object({ swept_at: z.string() }))`
      INSERT INTO approval_sweeps (expired_count) VALUES (${rows.length}) RETURNING swept_at`);
    return { expired: rows.length, swept_at: swept };
  });
}
