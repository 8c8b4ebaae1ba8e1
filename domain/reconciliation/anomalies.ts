// Reconciliation anomalies: opened by a reconciliation run (one per finding, never duplicated), listed,
// and resolved or dismissed by a person with a note.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabasePool } from '../../runtime/database';
import { ApiError, notFound } from '../errors';
import { recordEvent, type EventScope } from '../events/record';
import { prefixedId } from '../ids';

export const anomalyRow = z.object({
  id: z.string(),
  wallet_id: z.string().nullable(),
  org_id: z.string(),
  kind: z.enum(['debit_without_receipt', 'receipt_without_debit']),
  ledger_entry_id: z.bigint().nullable(),
  external_ref: z.string().nullable(),
  amount_minor: z.bigint().nullable(),
  currency: z.string().nullable(),
  detected_at: z.string(),
  status: z.enum(['open', 'resolved', 'dismissed']),
  resolved_at: z.string().nullable(),
  resolution_note: z.string().nullable(),
  metadata: z.record(z.unknown()),
});
export type AnomalyRow = z.infer<typeof anomalyRow>;
const COLUMNS = sql.fragment`id, wallet_id, org_id, kind, ledger_entry_id, external_ref, amount_minor, currency, detected_at, status, resolved_at, resolution_note, metadata`;

export interface Finding {
  kind: AnomalyRow['kind'];
  walletId: string | null;
  ledgerEntryId: bigint | null;
  externalRef: string;
  amountMinor: bigint | null;
  currency: string | null;
  metadata: Record<string, unknown>;
}

/** Opens the anomaly unless the same finding was already recorded; returns true when it is new. */
export async function openAnomaly(
  tx: CommonQueryMethods,
  scope: EventScope,
  finding: Finding,
): Promise<boolean> {
  const row = await tx.maybeOne(sql.type(anomalyRow)`
    INSERT INTO wallet_recon_anomalies (id, wallet_id, org_id, project_id, kind, ledger_entry_id, external_ref, amount_minor, currency, metadata)
    VALUES (${prefixedId('anm')}, ${finding.walletId}, ${scope.orgId}, ${scope.projectId}, ${finding.kind}, ${finding.ledgerEntryId?.toString() ?? null},
            ${finding.externalRef}, ${finding.amountMinor?.toString() ?? null}, ${finding.currency}, ${sql.jsonb(finding.metadata as never)})
    ON CONFLICT ON CONSTRAINT wallet_recon_anomalies_finding_key DO NOTHING
    RETURNING ${COLUMNS}`);
  if (!row) return false;
  await recordEvent(tx, scope, 'wallet.anomaly_detected', {
    anomaly_id: row.id,
    kind: row.kind,
    wallet_id: row.wallet_id,
    external_ref: row.external_ref,
    amount_minor: row.amount_minor,
    currency: row.currency,
  });
  return true;
}

export async function listAnomalies(
  db: CommonQueryMethods,
  orgId: string,
  projectId: string,
  filter: { status?: AnomalyRow['status']; walletId?: string; limit: number },
): Promise<AnomalyRow[]> {
  const where = [sql.fragment`org_id = ${orgId}`, sql.fragment`project_id = ${projectId}`];
  if (filter.status) where.push(sql.fragment`status = ${filter.status}`);
  if (filter.walletId) where.push(sql.fragment`wallet_id = ${filter.walletId}`);
  const rows = await db.any(sql.type(anomalyRow)`
    SELECT ${COLUMNS} FROM wallet_recon_anomalies WHERE ${sql.join(where, sql.fragment` AND `)} ORDER BY detected_at DESC, id DESC LIMIT ${filter.limit}`);
  return [...rows];
}

export async function resolveAnomaly(
  db: DatabasePool,
  scope: EventScope,
  id: string,
  input: { status: 'resolved' | 'dismissed'; note: string | null },
): Promise<AnomalyRow> {
  return db.transaction(async (tx) => {
    const current = await tx.maybeOne(sql.type(anomalyRow)`
      SELECT ${COLUMNS} FROM wallet_recon_anomalies WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND id = ${id} FOR UPDATE`);
    if (!current) throw notFound('Anomaly');
    if (current.status !== 'open')
      throw new ApiError(409, 'invalid_transition', `The anomaly is already ${current.status}`, {
        status: current.status,
      });
    const row = await tx.one(sql.type(anomalyRow)`
      UPDATE wallet_recon_anomalies SET status = ${input.status}, resolved_at = now(), resolution_note = ${input.note}
      WHERE id = ${id} RETURNING ${COLUMNS}`);
    await recordEvent(tx, scope, 'wallet.anomaly_resolved', {
      anomaly_id: id,
      status: row.status,
      note: row.resolution_note,
    });
    return row;
  });
}
