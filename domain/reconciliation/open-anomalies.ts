// Reconciliation anomalies still open, across organizations (or one), oldest first. Read-only.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';

const anomalyRow = z.object({
  id: z.string(),
  org_id: z.string(),
  project_id: z.string(),
  wallet_id: z.string().nullable(),
  kind: z.string(),
  external_ref: z.string().nullable(),
  amount_minor: z.bigint().nullable(),
  currency: z.string().nullable(),
  detected_at: z.string(),
});
export type OpenAnomaly = z.infer<typeof anomalyRow>;

export async function listOpenAnomalies(
  db: CommonQueryMethods,
  filter: { orgId?: string; limit: number },
): Promise<OpenAnomaly[]> {
  const org = filter.orgId ? sql.fragment`AND org_id = ${filter.orgId}` : sql.fragment``;
  const rows = await db.any(sql.type(anomalyRow)`
    SELECT id, org_id, project_id, wallet_id, kind, external_ref, amount_minor, currency, detected_at
    FROM wallet_recon_anomalies WHERE status = 'open' ${org}
    ORDER BY detected_at, id
    LIMIT ${filter.limit}`);
  return [...rows];
}
