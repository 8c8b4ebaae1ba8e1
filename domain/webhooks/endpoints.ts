// Webhook endpoints (triggers) and their signing secrets: create, read, list, update, delete. Every
// query names the organization and project; the secret is sealed at rest and only the creator sees it.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabasePool } from '../../runtime/database';
import { open, seal, type KeyRing } from '../crypto/secret-box';
import { ApiError, notFound } from '../errors';
import type { EventType } from '../../contracts/event-catalog';
import { prefixedId } from '../ids';
import { generateSigningSecret } from './signing';

export const ENDPOINT_STATUSES = ['active', 'paused', 'error'] as const;
export type EndpointStatus = (typeof ENDPOINT_STATUSES)[number];

export const endpointRow = z.object({
  id: z.string(),
  org_id: z.string(),
  project_id: z.string(),
  name: z.string(),
  event: z.string(),
  webhook_url: z.string(),
  server_id: z.string().nullable(),
  status: z.enum(ENDPOINT_STATUSES),
  status_reason: z.string().nullable(),
  total_runs: z.bigint(),
  last_run_at: z.string().nullable(),
  consecutive_dead: z.number(),
  signing_enabled: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type EndpointRow = z.infer<typeof endpointRow>;

const COLUMNS = sql.fragment`
  w.id, w.org_id, w.project_id, w.name, w.event, w.webhook_url, w.server_id, w.status, w.status_reason,
  w.total_runs, w.last_run_at, w.consecutive_dead, w.created_at, w.updated_at,
  EXISTS (SELECT 1 FROM webhook_signing_secrets s WHERE s.trigger_id = w.id) AS signing_enabled`;

export interface EndpointScope {
  orgId: string;
  projectId: string;
}

/** Secrets are bound to their endpoint: a sealed value copied onto another row will not open. */
const secretContext = (triggerId: string) => `webhook-signing-secret:${triggerId}`;

export async function createEndpoint(
  db: DatabasePool,
  scope: EndpointScope,
  input: { name: string; event: EventType; webhookUrl: string; serverId: string | null },
  ring: KeyRing,
): Promise<{ endpoint: EndpointRow; signingSecret: string }> {
  const id = prefixedId('trg');
  const signingSecret = generateSigningSecret();
  const sealed = seal(ring, signingSecret, secretContext(id));
  const endpoint = await db.transaction(async (tx) => {
    await tx.query(sql.unsafe`
      INSERT INTO webhook_endpoints (id, org_id, project_id, name, event, webhook_url, server_id)
      VALUES (${id}, ${scope.orgId}, ${scope.projectId}, ${input.name}, ${input.event}, ${input.webhookUrl}, ${input.serverId})`);
    await tx.query(sql.unsafe`
      INSERT INTO webhook_signing_secrets (trigger_id, org_id, project_id, sealed, key_version)
      VALUES (${id}, ${scope.orgId}, ${scope.projectId}, ${sealed}, ${ring.current})`);
    return tx.one(
      sql.type(
        endpointRow,
      )`SELECT ${COLUMNS} FROM webhook_endpoints w WHERE w.org_id = ${scope.orgId} AND w.project_id = ${scope.projectId} AND w.id = ${id}`,
    );
  });
  return { endpoint, signingSecret };
}

export async function findEndpoint(
  db: CommonQueryMethods,
  scope: EndpointScope,
  id: string,
): Promise<EndpointRow | null> {
  return db.maybeOne(sql.type(endpointRow)`
    SELECT ${COLUMNS} FROM webhook_endpoints w WHERE w.org_id = ${scope.orgId} AND w.project_id = ${scope.projectId} AND w.id = ${id}`);
}

export async function getEndpoint(
  db: CommonQueryMethods,
  scope: EndpointScope,
  id: string,
): Promise<EndpointRow> {
  const row = await findEndpoint(db, scope, id);
  if (!row) throw notFound('Webhook endpoint');
  return row;
}

export interface EndpointFilter {
  before?: string;
  event?: string;
  serverId?: string;
  status?: EndpointStatus;
  limit: number;
}

/** Newest first; `before` is the id of the last endpoint of the previous page. */
export async function listEndpoints(
  db: CommonQueryMethods,
  scope: EndpointScope,
  filter: EndpointFilter,
): Promise<{ rows: EndpointRow[]; nextBefore: string | null }> {
  const where = [sql.fragment`w.org_id = ${scope.orgId}`, sql.fragment`w.project_id = ${scope.projectId}`];
  if (filter.before) {
    const cursor = await db.maybeOne(sql.type(z.object({ created_at: z.string() }))`
      SELECT created_at FROM webhook_endpoints WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND id = ${filter.before}`);
    if (!cursor)
      throw new ApiError(400, 'invalid_query', '`before` names no webhook endpoint of this project', {
        before: filter.before,
      });
    where.push(sql.fragment`(w.created_at, w.id) < (${cursor.created_at}::timestamptz, ${filter.before})`);
  }
  if (filter.event) where.push(sql.fragment`w.event = ${filter.event}`);
  if (filter.serverId) where.push(sql.fragment`w.server_id = ${filter.serverId}`);
  if (filter.status) where.push(sql.fragment`w.status = ${filter.status}`);
  const rows = await db.any(sql.type(endpointRow)`
    SELECT ${COLUMNS} FROM webhook_endpoints w WHERE ${sql.join(where, sql.fragment` AND `)}
    ORDER BY w.created_at DESC, w.id DESC LIMIT ${filter.limit + 1}`);
  const page = rows.slice(0, filter.limit);
  return { rows: page, nextBefore: rows.length > filter.limit ? page[page.length - 1].id : null };
}

/** Active endpoints subscribed to an event type; an endpoint narrowed to a server only matches that server. */
export async function activeSubscribers(
  db: CommonQueryMethods,
  scope: EndpointScope,
  eventType: string,
  serverId: string | null,
): Promise<EndpointRow[]> {
  const rows = await db.any(sql.type(endpointRow)`
    SELECT ${COLUMNS} FROM webhook_endpoints w
    WHERE w.org_id = ${scope.orgId} AND w.project_id = ${scope.projectId} AND w.event = ${eventType} AND w.status = 'active'
      AND (w.server_id IS NULL OR w.server_id = ${serverId})
    ORDER BY w.created_at, w.id`);
  return [...rows];
}

export interface EndpointPatch {
  name?: string;
  webhookUrl?: string;
  status?: 'active' | 'paused';
}

/** Applies a patch; `reactivated` tells the caller to wake deliveries that waited for the endpoint. */
export async function updateEndpoint(
  db: DatabasePool,
  scope: EndpointScope,
  id: string,
  patch: EndpointPatch,
): Promise<{ endpoint: EndpointRow; reactivated: boolean }> {
  return db.transaction(async (tx) => {
    const current = await tx.maybeOne(sql.type(z.object({ status: z.enum(ENDPOINT_STATUSES) }))`
      SELECT status FROM webhook_endpoints WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND id = ${id} FOR UPDATE`);
    if (!current) throw notFound('Webhook endpoint');
    const status = patch.status ?? current.status;
    const reactivated = status === 'active' && current.status !== 'active';
    const statusChanged = status !== current.status;
    await tx.query(sql.unsafe`
      UPDATE webhook_endpoints SET
        name = COALESCE(${patch.name ?? null}, name),
        webhook_url = COALESCE(${patch.webhookUrl ?? null}, webhook_url),
        status = ${status},
        status_reason = CASE WHEN ${statusChanged} THEN ${status === 'active' ? null : 'requested'} ELSE status_reason END,
        -- A person reactivating an endpoint starts its dead-delivery count afresh.
        consecutive_dead = CASE WHEN ${reactivated} THEN 0 ELSE consecutive_dead END,
        updated_at = now()
      WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND id = ${id}`);
    const endpoint = await tx.one(sql.type(endpointRow)`
      SELECT ${COLUMNS} FROM webhook_endpoints w WHERE w.org_id = ${scope.orgId} AND w.project_id = ${scope.projectId} AND w.id = ${id}`);
    return { endpoint, reactivated };
  });
}

/** How long a delete waits for a lock on the secret before answering 503 instead of hanging. */
const PURGE_LOCK_TIMEOUT = '2s';

/**
 * Purges the signing secret, then the endpoint and its deliveries, in one transaction. When the secret
 * cannot be purged (locked, or the store fails) nothing is deleted and the caller may retry: 503.
 */
export async function deleteEndpoint(db: DatabasePool, scope: EndpointScope, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    const exists = await tx.exists(sql.unsafe`
      SELECT 1 FROM webhook_endpoints WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND id = ${id}`);
    if (!exists) throw notFound('Webhook endpoint');
    try {
      await tx.query(sql.unsafe`SELECT set_config('lock_timeout', ${PURGE_LOCK_TIMEOUT}, true)`);
      await tx.query(sql.unsafe`
        DELETE FROM webhook_signing_secrets WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND trigger_id = ${id}`);
    } catch {
      throw new ApiError(
        503,
        'vault_unavailable',
        'The signing secret could not be purged; nothing was deleted. Retry the delete.',
        { retriable: true },
      );
    }
    await tx.query(sql.unsafe`SELECT set_config('lock_timeout', '0', true)`);
    await tx.query(
      sql.unsafe`DELETE FROM webhook_endpoints WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND id = ${id}`,
    );
  });
}

/** The endpoint's signing secret in clear, for signing one attempt; null when signing is off. */
export function openSigningSecret(ring: KeyRing, triggerId: string, sealed: string | null): string | null {
  return sealed ? open(ring, sealed, secretContext(triggerId)) : null;
}
