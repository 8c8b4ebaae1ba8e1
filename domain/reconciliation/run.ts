// One reconciliation run of a project: load the unreconciled provider debits, compare with the provider's
// settlement records, stamp matches reconciled_at, open anomalies for the rest, and record the run.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabasePool } from '../../runtime/database';
import type { EventScope } from '../events/record';
import { openAnomaly } from './anomalies';
import { compare, type LedgerDebit, type ProviderRecord } from './compare';

export const runRow = z.object({
  id: z.string(),
  status: z.enum(['running', 'completed', 'failed']),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  debits_checked: z.number(),
  receipts_checked: z.number(),
  anomalies_opened: z.number(),
});
export type RunRow = z.infer<typeof runRow>;
const RUN_COLUMNS = sql.fragment`id, status, started_at, finished_at, debits_checked, receipts_checked, anomalies_opened`;

const debitRow = z.object({
  id: z.bigint(),
  wallet_id: z.string(),
  external_ref: z.string(),
  amount_minor: z.bigint(),
  currency: z.string(),
});
const attemptWallet = z.object({ attempt_id: z.string(), wallet_id: z.string() });

export async function startRun(
  db: CommonQueryMethods,
  orgId: string,
  projectId: string,
  runId: string,
): Promise<RunRow> {
  await db.query(
    sql.unsafe`INSERT INTO wallet_recon_runs (id, org_id, project_id, status) VALUES (${runId}, ${orgId}, ${projectId}, 'running') ON CONFLICT (id) DO NOTHING`,
  );
  return getRun(db, orgId, projectId, runId) as Promise<RunRow>;
}

export async function getRun(
  db: CommonQueryMethods,
  orgId: string,
  projectId: string,
  runId: string,
): Promise<RunRow | null> {
  return db.maybeOne(
    sql.type(
      runRow,
    )`SELECT ${RUN_COLUMNS} FROM wallet_recon_runs WHERE org_id = ${orgId} AND project_id = ${projectId} AND id = ${runId}`,
  );
}

/** Settlement records carry the gateway's metadata; only this project's records are compared. */
export async function reconcile(
  db: DatabasePool,
  scope: EventScope,
  runId: string,
  records: ProviderRecord[],
): Promise<RunRow> {
  return db.transaction(async (tx) => {
    const rows = await tx.any(sql.type(debitRow)`
      SELECT id, wallet_id, external_ref, -amount_minor AS amount_minor, currency FROM wallet_ledger_entries
      WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND kind = 'debit' AND external_ref LIKE 'payment:%'`);
    const debits: LedgerDebit[] = rows.map((r) => ({
      entryId: r.id,
      walletId: r.wallet_id,
      paymentId: r.external_ref.slice('payment:'.length),
      amountMinor: r.amount_minor,
      currency: r.currency,
    }));
    const result = compare(debits, records);
    if (result.matched.length > 0) {
      await tx.query(sql.unsafe`UPDATE wallet_ledger_entries SET reconciled_at = now()
        WHERE id = ANY(${sql.array(
          result.matched.map((d) => d.entryId.toString()),
          'int8',
        )}) AND reconciled_at IS NULL`);
    }
    let opened = 0;
    for (const debit of result.debitsWithoutReceipt) {
      if (
        await openAnomaly(tx, scope, {
          kind: 'debit_without_receipt',
          walletId: debit.walletId,
          ledgerEntryId: debit.entryId,
          externalRef: `payment:${debit.paymentId}`,
          amountMinor: debit.amountMinor,
          currency: debit.currency,
          metadata: { run_id: runId },
        })
      )
        opened += 1;
    }
    const attempts =
      records.length === 0
        ? []
        : await tx.any(sql.type(attemptWallet)`
      SELECT attempt_id, wallet_id FROM attempts WHERE org_id = ${scope.orgId} AND id_space = 'wallet' AND project_id = ${scope.projectId}
        AND attempt_id = ANY(${sql.array(
          records.map((r) => r.reference),
          'text',
        )})`);
    const walletOf = new Map(attempts.map((a) => [a.attempt_id, a.wallet_id]));
    for (const record of result.receiptsWithoutDebit) {
      if (
        await openAnomaly(tx, scope, {
          kind: 'receipt_without_debit',
          walletId: walletOf.get(record.reference) ?? null,
          ledgerEntryId: null,
          externalRef: `payment:${record.paymentId}`,
          amountMinor: record.amountMinor,
          currency: record.currency,
          metadata: { run_id: runId, reference: record.reference },
        })
      )
        opened += 1;
    }
    return tx.one(sql.type(runRow)`
      UPDATE wallet_recon_runs SET status = 'completed', finished_at = now(), debits_checked = ${debits.length}, receipts_checked = ${records.length}, anomalies_opened = ${opened}
      WHERE id = ${runId} RETURNING ${RUN_COLUMNS}`);
  });
}

/** Projects that have provider debits: the cron sweep reconciles each of them. */
export async function projectsWithDebits(
  db: CommonQueryMethods,
): Promise<Array<{ org_id: string; project_id: string; environment: 'live' | 'test' }>> {
  const rows = await db.any(sql.type(
    z.object({ org_id: z.string(), project_id: z.string(), environment: z.enum(['live', 'test']) }),
  )`
    SELECT DISTINCT e.org_id, e.project_id, p.environment FROM wallet_ledger_entries e JOIN projects p ON p.id = e.project_id
    WHERE e.kind = 'debit' AND e.external_ref LIKE 'payment:%' AND e.reconciled_at IS NULL`);
  return [...rows];
}
