// Money attempts that should have finished by now, of every family: processing, or (a consumer spend)
// waiting on an uncertain provider dispatch, older than the console's threshold. Each carries its workflow
// id so the operator can open it in the Temporal UI. Read-only.
import { sql } from 'slonik';
import { z } from 'zod';
import { ATTEMPT_FAMILIES } from '../../contracts/attempt';
import type { CommonQueryMethods } from '../../runtime/database';

const stuckRow = z.object({
  family: z.enum(ATTEMPT_FAMILIES),
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
  // A wallet execute's request holds the amount in major units as the caller sent it; the other families
  // keep minor units on the row. A paid tool call's payee is the tool it pays.
  const rows = await db.any(sql.type(stuckRow)`
    SELECT family, org_id, project_id, attempt_id, status, workflow_id,
      CASE family WHEN 'wallet_execute' THEN request->>'amount'
        ELSE coalesce(amount_minor::text, request->>'price_minor') || ' minor' END AS amount,
      coalesce(currency, request->>'currency') AS currency,
      CASE family WHEN 'wallet_execute' THEN request->>'recipient' WHEN 'tool_charge' THEN request->>'tool' ELSE payee END AS payee,
      created_at
    FROM attempts WHERE status IN ('processing', 'dispatch_uncertain') AND created_at < ${before} ${org}
    ORDER BY created_at, attempt_id
    LIMIT ${filter.limit}`);
  return [...rows];
}
