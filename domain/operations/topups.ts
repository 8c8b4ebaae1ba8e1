// The console's read of wallet top-ups across organizations (or one): the newest first, pending ones
// included, each with the workflow that holds it so an operator can open it in the Temporal UI. Read-only.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import { workflowIds } from '../../contracts/workflow-ids';

const operatorTopupRow = z.object({
  id: z.string(),
  org_id: z.string(),
  project_id: z.string(),
  environment: z.string(),
  wallet_id: z.string(),
  method: z.enum(['pix', 'usdc']),
  currency: z.string(),
  amount_minor: z.bigint(),
  status: z.string(),
  provider_ref: z.string().nullable(),
  failure_reason: z.string().nullable(),
  created_at: z.string(),
});
export type OperatorTopup = z.infer<typeof operatorTopupRow> & { workflow_id: string };

export async function listTopupsForOperator(
  db: CommonQueryMethods,
  filter: { orgId?: string; limit: number },
): Promise<OperatorTopup[]> {
  const org = filter.orgId ? sql.fragment`WHERE org_id = ${filter.orgId}` : sql.fragment``;
  const rows = await db.any(sql.type(operatorTopupRow)`
    SELECT id, org_id, project_id, environment, wallet_id, method, currency, amount_minor, status, provider_ref,
      failure_reason, created_at
    FROM wallet_topups ${org} ORDER BY created_at DESC, id DESC LIMIT ${filter.limit}`);
  return rows.map((row) => ({
    ...row,
    workflow_id:
      row.method === 'pix'
        ? workflowIds.walletTopup(row.org_id, row.id)
        : workflowIds.depositWatch(row.wallet_id),
  }));
}
