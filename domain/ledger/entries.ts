// Reading the ledger: entry rows as stored, and the paged listing filtered by kind and currency.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import type { EntryKind } from '../../contracts/ledger-entry-kinds';

export const entryRow = z.object({
  id: z.bigint(),
  wallet_id: z.string(),
  org_id: z.string(),
  currency: z.string(),
  kind: z.enum(['fund', 'hold', 'release', 'debit', 'reconcile', 'reverse', 'fee']),
  amount_minor: z.bigint(),
  hold_id: z.string().nullable(),
  mandate_id: z.string().nullable(),
  attempt_id: z.string().nullable(),
  external_ref: z.string().nullable(),
  reconciled_at: z.string().nullable(),
  posted_at: z.string(),
  metadata: z.record(z.unknown()),
  /** The agent a hold or debit was decided as: whose budgets count it. Null on entries no agent spent. */
  agent_id: z.string().nullable(),
});
export type EntryRow = z.infer<typeof entryRow>;

export const ENTRY_COLUMNS = sql.fragment`id, wallet_id, org_id, currency, kind, amount_minor, hold_id, mandate_id, attempt_id, external_ref, reconciled_at, posted_at, metadata, agent_id`;

export interface EntryFilter {
  kind?: EntryKind;
  currency?: string;
  limit: number;
  /** Cursor: entries with a smaller id than this one (newest first). */
  before?: bigint;
}

export async function listEntries(
  db: CommonQueryMethods,
  orgId: string,
  projectId: string,
  walletId: string,
  filter: EntryFilter,
): Promise<EntryRow[]> {
  const where = [
    sql.fragment`org_id = ${orgId}`,
    sql.fragment`project_id = ${projectId}`,
    sql.fragment`wallet_id = ${walletId}`,
  ];
  if (filter.kind) where.push(sql.fragment`kind = ${filter.kind}`);
  if (filter.currency) where.push(sql.fragment`currency = ${filter.currency}`);
  if (filter.before !== undefined) where.push(sql.fragment`id < ${filter.before.toString()}::bigint`);
  const rows = await db.any(sql.type(entryRow)`
    SELECT ${ENTRY_COLUMNS} FROM wallet_ledger_entries WHERE ${sql.join(where, sql.fragment` AND `)}
    ORDER BY id DESC LIMIT ${filter.limit}`);
  return [...rows];
}
