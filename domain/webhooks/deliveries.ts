// Delivery rows: the chains the dispatcher, redeliveries, replays and test-fires create, and the reads
// behind the delivery routes, retry-pending and the overdue sweep. One row per attempt; a chain's
// first row id is the chain id and names its workflow.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import type { Environment } from '../tenancy/api-key-format';
import type { AttemptContext } from './attempts';
import { DELIVERY_STATUSES } from './delivery-status';
import type { EndpointScope } from './endpoints';

export type DeliveryOrigin = 'dispatch' | 'redeliver' | 'replay' | 'test';

export const deliveryRow = z.object({
  id: z.bigint(),
  trigger_id: z.string(),
  event_id: z.string(),
  chain_id: z.bigint(),
  attempt: z.number(),
  origin: z.enum(['dispatch', 'redeliver', 'replay', 'test']),
  redelivery_of: z.bigint().nullable(),
  status: z.enum(DELIVERY_STATUSES),
  scheduled_at: z.string(),
  held_since: z.string().nullable(),
  attempted_at: z.string().nullable(),
  duration_ms: z.number().nullable(),
  request_url: z.string().nullable(),
  request_headers: z.record(z.string()).nullable(),
  request_body: z.string().nullable(),
  request_body_truncated: z.boolean(),
  response_status: z.number().nullable(),
  response_headers: z.record(z.string()).nullable(),
  response_body: z.string().nullable(),
  response_body_truncated: z.boolean(),
  error: z.string().nullable(),
  created_at: z.string(),
});
export type DeliveryRow = z.infer<typeof deliveryRow>;

const COLUMNS = sql.fragment`
  d.id, d.trigger_id, d.event_id, d.chain_id, d.attempt, d.origin, d.redelivery_of, d.status, d.scheduled_at, d.held_since,
  d.attempted_at, d.duration_ms, d.request_url, d.request_headers, d.request_body, d.request_body_truncated,
  d.response_status, d.response_headers, d.response_body, d.response_body_truncated, d.error, d.created_at`;

/** What starting (or waking) a chain's workflow needs to know. */
export const chainRef = z.object({
  chain_id: z.bigint(),
  attempt: z.number(),
  org_id: z.string(),
  project_id: z.string(),
  environment: z.enum(['live', 'test']),
  trigger_id: z.string(),
  event_id: z.string(),
  event_type: z.string(),
});
export type ChainRef = z.infer<typeof chainRef>;

/** Starts a new chain (attempt 1, pending) for one event and one endpoint. */
export async function insertChain(
  tx: CommonQueryMethods,
  scope: EndpointScope,
  input: { triggerId: string; eventId: string; origin: DeliveryOrigin; redeliveryOf?: bigint | null },
): Promise<ChainRef> {
  return tx.one(sql.type(chainRef)`
    WITH next AS (SELECT nextval(pg_get_serial_sequence('webhook_deliveries', 'id')) AS id),
    inserted AS (
      INSERT INTO webhook_deliveries (id, chain_id, org_id, project_id, trigger_id, event_id, attempt, origin, redelivery_of)
      SELECT next.id, next.id, ${scope.orgId}, ${scope.projectId}, ${input.triggerId}, ${input.eventId}, 1, ${input.origin}, ${input.redeliveryOf ?? null}
      FROM next
      RETURNING chain_id, attempt, org_id, project_id, trigger_id, event_id
    )
    SELECT i.chain_id, i.attempt, i.org_id, i.project_id, e.environment, i.trigger_id, i.event_id, e.type AS event_type
    FROM inserted i JOIN events e ON e.id = i.event_id AND e.org_id = i.org_id AND e.project_id = i.project_id`);
}

const dispatchedRow = chainRef.extend({
  webhook_url: z.string(),
  endpoint_status: z.enum(['active', 'paused', 'error']),
  sealed_secret: z.string().nullable(),
  event_created_at: z.string(),
  event_data: z.unknown(),
});

/** A new chain with everything its first attempt needs, read in the same statement that created it. */
export type DispatchedChain = ChainRef & { context: AttemptContext };

/**
 * Claims committed events nobody has dispatched yet (SKIP LOCKED, so several dispatchers share the
 * work), marks them dispatched and creates one chain per subscribed active endpoint, in one
 * transaction. An endpoint narrowed by `server_id` only receives events whose data names that server.
 * This is a system job: it reads every tenant's outbox, and each row it writes carries its event's tenant.
 */
export async function fanOutUndispatched(
  tx: CommonQueryMethods,
  batch: number,
): Promise<{ claimed: number; chains: DispatchedChain[] }> {
  const claimed = await tx.any(sql.type(z.object({ id: z.string() }))`
    UPDATE events SET dispatched_at = now()
    WHERE id IN (SELECT id FROM events WHERE dispatched_at IS NULL ORDER BY created_at LIMIT ${batch} FOR UPDATE SKIP LOCKED)
    RETURNING id`);
  if (claimed.length === 0) return { claimed: 0, chains: [] };
  const ids = claimed.map((row) => row.id);
  const chains = await tx.any(sql.type(dispatchedRow)`
    WITH targets AS (
      SELECT nextval(pg_get_serial_sequence('webhook_deliveries', 'id')) AS id, e.org_id, e.project_id, w.id AS trigger_id, e.id AS event_id
      FROM events e
      JOIN webhook_endpoints w ON w.org_id = e.org_id AND w.project_id = e.project_id AND w.event = e.type AND w.status = 'active'
        AND (w.server_id IS NULL OR w.server_id = e.data->>'server_id')
      WHERE e.id = ANY(${sql.array(ids, 'text')})
    ),
    inserted AS (
      INSERT INTO webhook_deliveries (id, chain_id, org_id, project_id, trigger_id, event_id, attempt, origin)
      SELECT id, id, org_id, project_id, trigger_id, event_id, 1, 'dispatch' FROM targets
      RETURNING chain_id, attempt, org_id, project_id, trigger_id, event_id
    )
    SELECT i.chain_id, i.attempt, i.org_id, i.project_id, e.environment, i.trigger_id, i.event_id, e.type AS event_type,
           w.webhook_url, w.status AS endpoint_status, s.sealed AS sealed_secret, e.created_at AS event_created_at, e.data AS event_data
    FROM inserted i JOIN events e ON e.id = i.event_id
    JOIN webhook_endpoints w ON w.org_id = i.org_id AND w.project_id = i.project_id AND w.id = i.trigger_id
    LEFT JOIN webhook_signing_secrets s ON s.trigger_id = w.id`);
  return {
    claimed: claimed.length,
    chains: chains.map(
      ({ webhook_url, endpoint_status, sealed_secret, event_created_at, event_data, ...ref }) => ({
        ...ref,
        context: {
          delivery_id: ref.chain_id,
          trigger_id: ref.trigger_id,
          status: 'pending',
          error: null,
          response_status: null,
          endpoint_status,
          webhook_url,
          sealed_secret,
          event_id: ref.event_id,
          event_type: ref.event_type,
          event_created_at,
          event_data,
          project_id: ref.project_id,
          environment: ref.environment,
          next_due_in_ms: null,
        },
      }),
    ),
  };
}

/** Newest first; `before` pages by delivery id. */
export async function listDeliveries(
  db: CommonQueryMethods,
  scope: EndpointScope,
  triggerId: string,
  limit: number,
  before?: bigint,
): Promise<DeliveryRow[]> {
  const cursor = before === undefined ? sql.fragment`TRUE` : sql.fragment`d.id < ${before}`;
  const rows = await db.any(sql.type(deliveryRow)`
    SELECT ${COLUMNS} FROM webhook_deliveries d
    WHERE d.org_id = ${scope.orgId} AND d.project_id = ${scope.projectId} AND d.trigger_id = ${triggerId} AND ${cursor}
    ORDER BY d.id DESC LIMIT ${limit}`);
  return [...rows];
}

export async function findDelivery(
  db: CommonQueryMethods,
  scope: EndpointScope,
  id: bigint,
  triggerId?: string,
): Promise<DeliveryRow | null> {
  const endpoint = triggerId === undefined ? sql.fragment`TRUE` : sql.fragment`d.trigger_id = ${triggerId}`;
  return db.maybeOne(sql.type(deliveryRow)`
    SELECT ${COLUMNS} FROM webhook_deliveries d
    WHERE d.org_id = ${scope.orgId} AND d.project_id = ${scope.projectId} AND d.id = ${id} AND ${endpoint}`);
}

const pendingRef = chainRef.extend({ endpoint_status: z.enum(['active', 'paused', 'error']) });
export type PendingRef = z.infer<typeof pendingRef>;

const PENDING_REF = sql.fragment`
  d.chain_id, d.attempt, d.org_id, d.project_id, e.environment, d.trigger_id, d.event_id, e.type AS event_type, w.status AS endpoint_status`;

/** The project's pending attempts, oldest due first: the queue retry-pending drains. */
export async function pendingForProject(
  db: CommonQueryMethods,
  scope: EndpointScope,
  limit: number,
): Promise<PendingRef[]> {
  const rows = await db.any(sql.type(pendingRef)`
    SELECT ${PENDING_REF}
    FROM webhook_deliveries d
    JOIN events e ON e.id = d.event_id
    JOIN webhook_endpoints w ON w.org_id = d.org_id AND w.project_id = d.project_id AND w.id = d.trigger_id
    WHERE d.org_id = ${scope.orgId} AND d.project_id = ${scope.projectId} AND d.status = 'pending'
    ORDER BY d.scheduled_at, d.id LIMIT ${limit}`);
  return [...rows];
}

/** Pending attempts of one endpoint that are waiting for it to become active again. */
export async function heldChains(
  db: CommonQueryMethods,
  scope: EndpointScope,
  triggerId: string,
  limit: number,
): Promise<ChainRef[]> {
  const rows = await db.any(sql.type(pendingRef)`
    SELECT ${PENDING_REF}
    FROM webhook_deliveries d
    JOIN events e ON e.id = d.event_id
    JOIN webhook_endpoints w ON w.org_id = d.org_id AND w.project_id = d.project_id AND w.id = d.trigger_id
    WHERE d.org_id = ${scope.orgId} AND d.project_id = ${scope.projectId} AND d.trigger_id = ${triggerId}
      AND d.status = 'pending' AND d.held_since IS NOT NULL
    ORDER BY d.id LIMIT ${limit}`);
  return [...rows];
}

/**
 * The sweep's work: pending attempts of active endpoints that are overdue by more than `graceSeconds`,
 * which means their workflow never started or was lost. A system job across tenants, like fan-out.
 */
export async function overdueChains(
  db: CommonQueryMethods,
  graceSeconds: number,
  limit: number,
): Promise<ChainRef[]> {
  const rows = await db.any(sql.type(pendingRef)`
    SELECT ${PENDING_REF}
    FROM webhook_deliveries d
    JOIN events e ON e.id = d.event_id
    JOIN webhook_endpoints w ON w.org_id = d.org_id AND w.project_id = d.project_id AND w.id = d.trigger_id
    WHERE d.status = 'pending' AND d.scheduled_at < now() - make_interval(secs => ${graceSeconds}) AND w.status = 'active'
    ORDER BY d.scheduled_at LIMIT ${limit}`);
  return [...rows];
}
