// DDA registration rows: the claim a registration call makes (one row per client_request_id, at most one
// live row per consumer and document), and the state writes of the registration workflow. Each write
// names the state it leaves, so a late or repeated step changes nothing.
import { createHash } from 'node:crypto';
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabasePool } from '../../runtime/database';
import type { Tenant } from '../consumers/tenant';
import { recordEvent } from '../events/record';
import { prefixedId } from '../ids';

export const DDA_STATUSES = ['pending', 'active', 'error', 'deleted'] as const;

export const ddaSubscriptionRow = z.object({
  id: z.string(),
  org_id: z.string(),
  project_id: z.string(),
  environment: z.enum(['live', 'test']),
  consumer_id: z.string(),
  document: z.string(),
  client_request_id: z.string(),
  mandate_id: z.string(),
  client_name: z.string().nullable(),
  status: z.enum(DDA_STATUSES),
  provider_subscription_id: z.string().nullable(),
  error_code: z.string().nullable(),
  registered_at: z.string().nullable(),
  created_at: z.string(),
});
export type DdaSubscriptionRow = z.infer<typeof ddaSubscriptionRow>;

const COLUMNS = sql.fragment`id, org_id, project_id, environment, consumer_id, document, client_request_id, mandate_id,
  client_name, status, provider_subscription_id, error_code, registered_at, created_at`;

/** The provider's idempotency key of one registration: the same caller key for the same document is the same registration. */
export function clientRequestIdOf(orgId: string, consumerId: string, document: string, key: string): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([orgId, consumerId, document, key]))
    .digest('hex');
  return `dda-${digest.slice(0, 40)}`;
}

const tenantOfRow = (row: DdaSubscriptionRow): Tenant => ({
  orgId: row.org_id,
  projectId: row.project_id,
  environment: row.environment,
});

export async function findDdaSubscription(
  db: CommonQueryMethods,
  id: string,
): Promise<DdaSubscriptionRow | null> {
  return db.maybeOne(sql.type(ddaSubscriptionRow)`SELECT ${COLUMNS} FROM dda_subscriptions WHERE id = ${id}`);
}

export async function findByClientRequestId(
  db: CommonQueryMethods,
  clientRequestId: string,
): Promise<DdaSubscriptionRow | null> {
  return db.maybeOne(sql.type(ddaSubscriptionRow)`
    SELECT ${COLUMNS} FROM dda_subscriptions WHERE client_request_id = ${clientRequestId}`);
}

/** The consumer's newest registration of the document (the live one when there is one). */
export async function findLatestForDocument(
  db: CommonQueryMethods,
  tenant: Tenant,
  consumerId: string,
  document: string,
): Promise<DdaSubscriptionRow | null> {
  return db.maybeOne(sql.type(ddaSubscriptionRow)`
    SELECT ${COLUMNS} FROM dda_subscriptions
    WHERE org_id = ${tenant.orgId} AND project_id = ${tenant.projectId} AND consumer_id = ${consumerId} AND document = ${document}
    ORDER BY (status IN ('pending', 'active')) DESC, created_at DESC, id DESC LIMIT 1`);
}

export async function listActiveDocuments(
  db: CommonQueryMethods,
  tenant: Tenant,
  consumerId: string,
): Promise<string[]> {
  const rows = await db.any(sql.type(z.object({ document: z.string() }))`
    SELECT document FROM dda_subscriptions
    WHERE org_id = ${tenant.orgId} AND project_id = ${tenant.projectId} AND consumer_id = ${consumerId} AND status = 'active'
    ORDER BY document`);
  return rows.map((row) => row.document);
}

export interface DdaClaim {
  row: DdaSubscriptionRow;
  /** True when this call wrote the row. */
  inserted: boolean;
}

/**
 * Claims a registration: the row of this client_request_id when it exists, else the consumer's live row
 * for the document (a second key for a registered document registers nothing), else a new pending row.
 */
export async function claimDdaSubscription(
  db: DatabasePool,
  tenant: Tenant,
  input: {
    consumerId: string;
    document: string;
    clientRequestId: string;
    mandateId: string;
    clientName: string | null;
  },
): Promise<DdaClaim> {
  const existing = async (): Promise<DdaSubscriptionRow | null> => {
    const same = await findByClientRequestId(db, input.clientRequestId);
    if (same) return same;
    return db.maybeOne(sql.type(ddaSubscriptionRow)`
      SELECT ${COLUMNS} FROM dda_subscriptions
      WHERE org_id = ${tenant.orgId} AND project_id = ${tenant.projectId} AND consumer_id = ${input.consumerId}
        AND document = ${input.document} AND status IN ('pending', 'active')`);
  };
  const found = await existing();
  if (found) return { row: found, inserted: false };
  // Either unique key (client_request_id, or the live row per document) makes a racing claim a no-op.
  const inserted = await db.maybeOne(sql.type(ddaSubscriptionRow)`
    INSERT INTO dda_subscriptions (id, org_id, project_id, environment, consumer_id, document, client_request_id, mandate_id, client_name)
    VALUES (${prefixedId('dda')}, ${tenant.orgId}, ${tenant.projectId}, ${tenant.environment}, ${input.consumerId},
            ${input.document}, ${input.clientRequestId}, ${input.mandateId}, ${input.clientName})
    ON CONFLICT DO NOTHING
    RETURNING ${COLUMNS}`);
  if (inserted) return { row: inserted, inserted: true };
  const raced = await existing();
  if (!raced) throw new Error('a DDA registration claim conflicted with a row that is gone');
  return { row: raced, inserted: false };
}

/** The provider accepted the registration; false when the row had left `pending` or was registered already. */
export async function markDdaRegistered(db: CommonQueryMethods, id: string): Promise<boolean> {
  const updated = await db.maybeOne(sql.type(z.object({ id: z.string() }))`
    UPDATE dda_subscriptions SET registered_at = now(), updated_at = now()
    WHERE id = ${id} AND status = 'pending' AND registered_at IS NULL RETURNING id`);
  return updated !== null;
}

/** The provider refused the registration: `pending` becomes `error`. */
export async function markDdaError(
  db: DatabasePool,
  id: string,
  code: string,
): Promise<DdaSubscriptionRow | null> {
  return db.transaction(async (tx) => {
    const row = await tx.maybeOne(sql.type(ddaSubscriptionRow)`
      UPDATE dda_subscriptions SET status = 'error', error_code = ${code}, updated_at = now()
      WHERE id = ${id} AND status = 'pending' RETURNING ${COLUMNS}`);
    if (row)
      await recordEvent(tx, tenantOfRow(row), 'dda.subscription.failed', {
        consumer_id: row.consumer_id,
        document: row.document,
        code,
      });
    return row;
  });
}

/** The provider confirmed: `pending` becomes `active` with its subscription id; any other state stays. */
export async function markDdaActive(
  db: DatabasePool,
  id: string,
  providerSubscriptionId: string,
): Promise<DdaSubscriptionRow | null> {
  return db.transaction(async (tx) => {
    const row = await tx.maybeOne(sql.type(ddaSubscriptionRow)`
      UPDATE dda_subscriptions
      SET status = 'active', provider_subscription_id = ${providerSubscriptionId}, registered_at = COALESCE(registered_at, now()),
          activated_at = now(), updated_at = now()
      WHERE id = ${id} AND status = 'pending' RETURNING ${COLUMNS}`);
    if (row)
      await recordEvent(tx, tenantOfRow(row), 'dda.subscription.activated', {
        consumer_id: row.consumer_id,
        document: row.document,
        provider_subscription_id: providerSubscriptionId,
      });
    return row;
  });
}

export async function markDdaDeleted(db: DatabasePool, id: string): Promise<DdaSubscriptionRow | null> {
  return db.transaction(async (tx) => {
    const row = await tx.maybeOne(sql.type(ddaSubscriptionRow)`
      UPDATE dda_subscriptions SET status = 'deleted', deleted_at = now(), updated_at = now()
      WHERE id = ${id} AND status <> 'deleted' RETURNING ${COLUMNS}`);
    if (row)
      await recordEvent(tx, tenantOfRow(row), 'dda.subscription.deleted', {
        consumer_id: row.consumer_id,
        document: row.document,
      });
    return row;
  });
}
