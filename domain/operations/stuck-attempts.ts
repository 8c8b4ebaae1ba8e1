// Money attempts that should have finished by now: wallet executes still processing, and consumer
// spends processing or waiting on an uncertain provider dispatch, older than the console's threshold.
// Each carries its workflow id so the operator can open it in the Temporal UI. Read-only.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';

const stuckRow = z.object({
  family: z.enum(['wallet_execute', 'consumer_spend']),
  org_id: z.string(),
  project_id: z.string(),
  attempt_id: z.string(),
  status: z.string(),
  workflow_id: z.string(),
  amount: z.string().nullable(),
  currency: z.string().nullable(),
  payee: z.string().nullable(),
  created_at: z.string(),
});
export type StuckAttempt = z.infer<typeof stuckRow>;

export async function listStuckAttempts(
  db: CommonQueryMethods,
  filter: { olderThanMs: number; orgId?: string; limit: number },
): Promise<StuckAttempt[]> {
  const before = sql.fragment`now() - make_interval(secs => ${filter.olderThanMs / 1000})`;
  const org = filter.orgId ? sql.fragment`AND org_id = ${filter.orgId}` : sql.fragment``;
  // A wallet execute's request holds the amount in major units as the caller sent it; a consumer spend's row holds minor units.
  const rows = await db.any(sql.type(stuckRow)`
    (SELECT 'wallet_execute' AS family, org_id, project_id, attempt_id, status, workflow_id,
       request->>'amount' AS amount, request->>'currency' AS currency, request->>'recipient' AS payee, created_at
     FROM spend_attempts WHERE status = 'processing' AND created_at < ${before} ${org})
    UNION ALL
    (SELECT 'consumer_spend', org_id, project_id, attempt_id, status, workflow_id,
       amount_minor::text || ' minor', currency, payee, created_at
     FROM consumer_spend_attempts WHERE status IN ('processing', 'dispatch_uncertain') AND created_at < ${before} ${org})
    ORDER BY created_at, attempt_id
    LIMIT ${filter.limit}`);
  return [...rows];
}
