// Deployment-wide backlogs for the metrics gauges: pending approvals, events not yet dispatched and
// delivery attempts pending. Each count reads a partial index that holds only the waiting rows.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import type { Backlogs } from '../../runtime/telemetry/metrics';

const backlogRow = z.object({
  approvals_pending: z.bigint(),
  events_undispatched: z.bigint(),
  deliveries_pending: z.bigint(),
});

export async function readBacklogs(db: CommonQueryMethods): Promise<Backlogs> {
  const row = await db.one(sql.type(backlogRow)`
    SELECT (SELECT count(*) FROM approvals WHERE status = 'pending') AS approvals_pending,
           (SELECT count(*) FROM events WHERE dispatched_at IS NULL) AS events_undispatched,
           (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending') AS deliveries_pending`);
  return {
    approvalsPending: Number(row.approvals_pending),
    eventsUndispatched: Number(row.events_undispatched),
    deliveriesPending: Number(row.deliveries_pending),
  };
}
