// The spend seam between mandates and the mandate-bound payments area: one row per settled attempt in
// mandate_spends. Payments write it (in the transaction that settles the attempt); the consumer wallet
// roll-up and mandate amendments read it.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import type { Tenant } from '../consumers/tenant';

export interface MandateSpend {
  mandateId: string;
  amountMinor: bigint;
  currency: string;
  attemptId: string;
}

const spendRow = z.object({
  id: z.bigint(),
  mandate_id: z.string(),
  amount_minor: z.bigint(),
  currency: z.string(),
  attempt_id: z.string(),
  created_at: z.string(),
});
export type MandateSpendRow = z.infer<typeof spendRow>;

/**
 * Records a settled spend once per attempt: a retry of the same attempt finds its earlier row and gets
 * it back unchanged (`replayed: true`). Call it inside the transaction that settles the payment, after
 * verifyPresentedMandate(..., { lock: true }) so the caps are checked against a locked mandate.
 */
export async function recordMandateSpend(
  tx: CommonQueryMethods,
  tenant: Pick<Tenant, 'orgId' | 'projectId'>,
  spend: MandateSpend,
): Promise<{ row: MandateSpendRow; replayed: boolean }> {
  const inserted = await tx.maybeOne(sql.type(spendRow)`
    INSERT INTO mandate_spends (org_id, project_id, mandate_id, amount_minor, currency, attempt_id)
    VALUES (${tenant.orgId}, ${tenant.projectId}, ${spend.mandateId}, ${spend.amountMinor}, ${spend.currency}, ${spend.attemptId})
    ON CONFLICT ON CONSTRAINT mandate_spends_attempt_key DO NOTHING
    RETURNING id, mandate_id, amount_minor, currency, attempt_id, created_at`);
  if (inserted) return { row: inserted, replayed: false };
  const existing = await tx.one(sql.type(spendRow)`
    SELECT id, mandate_id, amount_minor, currency, attempt_id, created_at FROM mandate_spends
    WHERE org_id = ${tenant.orgId} AND attempt_id = ${spend.attemptId}`);
  return { row: existing, replayed: true };
}

/** Spent per mandate and currency, for the given mandates of one tenant. */
export async function spentByMandate(
  db: CommonQueryMethods,
  tenant: Pick<Tenant, 'orgId' | 'projectId'>,
  mandateIds: string[],
): Promise<Map<string, Map<string, bigint>>> {
  const spent = new Map<string, Map<string, bigint>>();
  if (mandateIds.length === 0) return spent;
  const rows = await db.any(sql.type(
    z.object({ mandate_id: z.string(), currency: z.string(), spent: z.bigint() }),
  )`
    SELECT mandate_id, currency, sum(amount_minor)::bigint AS spent FROM mandate_spends
    WHERE org_id = ${tenant.orgId} AND project_id = ${tenant.projectId} AND mandate_id = ANY(${sql.array(mandateIds, 'text')})
    GROUP BY mandate_id, currency`);
  for (const row of rows) {
    const byCurrency = spent.get(row.mandate_id) ?? new Map<string, bigint>();
    byCurrency.set(row.currency, row.spent);
    spent.set(row.mandate_id, byCurrency);
  }
  return spent;
}
