// The paid calls of tenant tool servers as their owners and operators read them: a server's charges (its
// owner's project only), one charge by its id or its caller's attempt id, and every held charge for an
// operator. Newest first by `seq`, which is also the cursor. Never the caller's arguments.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import type { Environment } from '../tenancy/api-key-format';
import type { Currency } from '../../contracts/currencies';
import { chargeId } from './charge-resolution';
import { minorToPrice } from './money';

/** How a charge is shown: `held` (upstream call under way), `uncertain`, `completed` (debited), `failed`. */
export type ChargeStatus = 'held' | 'uncertain' | 'completed' | 'failed';

const STORED: Record<ChargeStatus, string[]> = {
  held: ['held'],
  uncertain: ['uncertain'],
  completed: ['debited'],
  failed: ['released', 'refused'],
};

export const chargeListRow = z.object({
  seq: z.bigint(),
  org_id: z.string(),
  project_id: z.string(),
  attempt_id: z.string(),
  server_id: z.string(),
  server_org_id: z.string(),
  server_project_id: z.string(),
  environment: z.string(),
  tool_name: z.string(),
  currency: z.string(),
  price_minor: z.bigint(),
  tenant_share_minor: z.bigint().nullable(),
  fee_minor: z.bigint().nullable(),
  status: z.string(),
  created_at: z.string(),
  uncertain_at: z.string().nullable(),
  settled_at: z.string().nullable(),
  resolved_outcome: z.enum(['succeeded', 'failed']).nullable(),
  resolved_by: z.string().nullable(),
  resolved_at: z.string().nullable(),
});
export type ChargeListRow = z.infer<typeof chargeListRow>;

const COLUMNS = sql.fragment`c.seq, c.org_id, c.project_id, c.attempt_id, c.server_id, s.org_id AS server_org_id,
  s.project_id AS server_project_id, s.environment, c.tool_name, c.currency, c.price_minor, c.tenant_share_minor,
  c.fee_minor, c.status, c.created_at, c.uncertain_at, c.settled_at, c.resolved_outcome, c.resolved_by, c.resolved_at`;

export function chargeStatus(stored: string): ChargeStatus {
  if (stored === 'debited') return 'completed';
  if (stored === 'released' || stored === 'refused') return 'failed';
  return stored === 'uncertain' ? 'uncertain' : 'held';
}

/** `tch_12` → 12n; null for anything else. */
export function chargeSeq(id: string): bigint | null {
  const match = /^tch_([1-9][0-9]{0,17})$/.exec(id);
  return match ? BigInt(match[1]) : null;
}

export interface ChargeFilter {
  status?: ChargeStatus;
  limit: number;
  /** The `id` of the last charge of the previous page. */
  startingAfter?: string;
}

function pageWhere(filter: ChargeFilter) {
  const where = [];
  if (filter.status) where.push(sql.fragment`c.status = ANY(${sql.array(STORED[filter.status], 'text')})`);
  const after = filter.startingAfter ? chargeSeq(filter.startingAfter) : null;
  if (after !== null) where.push(sql.fragment`c.seq < ${after.toString()}`);
  return where;
}

/** A server's charges, newest first; the caller checked the server belongs to the asking project. */
export async function listServerCharges(
  db: CommonQueryMethods,
  serverId: string,
  filter: ChargeFilter,
): Promise<readonly ChargeListRow[]> {
  const where = [sql.fragment`c.server_id = ${serverId}`, ...pageWhere(filter)];
  return db.any(sql.type(chargeListRow)`
    SELECT ${COLUMNS} FROM tool_server_charges c JOIN tool_servers s ON s.id = c.server_id
    WHERE ${sql.join(where, sql.fragment` AND `)} ORDER BY c.seq DESC LIMIT ${filter.limit}`);
}

/** The server's charges named by `ref`: its `tch_` id, else the caller's attempt id (unique per caller organization only). */
export async function findServerCharges(
  db: CommonQueryMethods,
  serverId: string,
  ref: string,
): Promise<readonly ChargeListRow[]> {
  const seq = chargeSeq(ref);
  if (seq !== null) {
    const byId = await db.any(sql.type(chargeListRow)`
      SELECT ${COLUMNS} FROM tool_server_charges c JOIN tool_servers s ON s.id = c.server_id
      WHERE c.server_id = ${serverId} AND c.seq = ${seq.toString()}`);
    if (byId.length > 0) return byId;
  }
  return db.any(sql.type(chargeListRow)`
    SELECT ${COLUMNS} FROM tool_server_charges c JOIN tool_servers s ON s.id = c.server_id
    WHERE c.server_id = ${serverId} AND c.attempt_id = ${ref} ORDER BY c.seq DESC LIMIT 10`);
}

/** Any charge by its id, for an operator; `orgId` narrows it to a tenant's organization. */
export async function findCharge(
  db: CommonQueryMethods,
  id: string,
  orgId?: string,
): Promise<ChargeListRow | null> {
  const seq = chargeSeq(id);
  if (seq === null) return null;
  return db.maybeOne(sql.type(chargeListRow)`
    SELECT ${COLUMNS} FROM tool_server_charges c JOIN tool_servers s ON s.id = c.server_id
    WHERE c.seq = ${seq.toString()} ${orgId ? sql.fragment`AND s.org_id = ${orgId}` : sql.fragment``}`);
}

/** Every tenant's charges for an operator (held ones by default), optionally one tenant organization's. */
export async function listChargesForOperator(
  db: CommonQueryMethods,
  filter: ChargeFilter & { orgId?: string },
): Promise<readonly ChargeListRow[]> {
  const where = pageWhere(filter);
  if (filter.orgId) where.push(sql.fragment`s.org_id = ${filter.orgId}`);
  return db.any(sql.type(chargeListRow)`
    SELECT ${COLUMNS} FROM tool_server_charges c JOIN tool_servers s ON s.id = c.server_id
    ${where.length ? sql.fragment`WHERE ${sql.join(where, sql.fragment` AND `)}` : sql.fragment``}
    ORDER BY c.seq DESC LIMIT ${filter.limit}`);
}

/** The API shape of a charge: money as decimal strings and minor units, who resolved it and how. */
export function presentCharge(row: ChargeListRow): Record<string, unknown> {
  const currency = row.currency as Currency;
  return {
    id: chargeId(row.seq),
    object: 'tool_charge',
    attempt_id: row.attempt_id,
    server_id: row.server_id,
    tool: row.tool_name,
    price: minorToPrice(row.price_minor, currency),
    price_minor: row.price_minor.toString(),
    currency,
    tenant_share_minor: row.tenant_share_minor?.toString() ?? null,
    fee_minor: row.fee_minor?.toString() ?? null,
    caller_project_id: row.project_id,
    status: chargeStatus(row.status),
    resolution: row.resolved_outcome
      ? { outcome: row.resolved_outcome, resolved_by: row.resolved_by, resolved_at: row.resolved_at }
      : null,
    environment: row.environment as Environment,
    created_at: row.created_at,
    uncertain_at: row.uncertain_at,
    settled_at: row.settled_at,
  };
}
