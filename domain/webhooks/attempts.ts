// The SQL of one delivery attempt: load what it needs, hold it while its endpoint is not active, and
// record its outcome in one transaction (the row, the next attempt's row, the endpoint's counters and
// auto-pause). Every write is guarded by `status = 'pending'`, so a retried activity finds its own result.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabasePool } from '../../runtime/database';
import { effectiveSettings } from '../tenancy/settings';
import { ENDPOINT_STATUSES } from './endpoints';
import { DELIVERY_STATUSES } from './delivery-status';

const attemptContext = z.object({
  delivery_id: z.bigint(),
  trigger_id: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  error: z.string().nullable(),
  response_status: z.number().nullable(),
  endpoint_status: z.enum(ENDPOINT_STATUSES),
  webhook_url: z.string(),
  sealed_secret: z.string().nullable(),
  event_id: z.string(),
  event_type: z.string(),
  event_created_at: z.string(),
  event_data: z.unknown(),
  project_id: z.string(),
  environment: z.enum(['live', 'test']),
  /** Milliseconds until the chain's next attempt is due, when this one failed and one is scheduled. */
  next_due_in_ms: z.number().nullable(),
});
export type AttemptContext = z.infer<typeof attemptContext>;

export interface ChainKey {
  orgId: string;
  projectId: string;
  chainId: string;
  attempt: number;
}

/** The attempt's row with its endpoint, event and sealed secret; null when the endpoint (and so the row) is gone. */
export async function loadAttempt(db: CommonQueryMethods, key: ChainKey): Promise<AttemptContext | null> {
  return db.maybeOne(sql.type(attemptContext)`
    SELECT d.id AS delivery_id, d.trigger_id, d.status, d.error, d.response_status,
           w.status AS endpoint_status, w.webhook_url, s.sealed AS sealed_secret,
           e.id AS event_id, e.type AS event_type, e.created_at AS event_created_at, e.data AS event_data,
           e.project_id, e.environment,
           (SELECT greatest(0, floor(extract(epoch FROM (n.scheduled_at - now())) * 1000))::int
              FROM webhook_deliveries n WHERE n.chain_id = d.chain_id AND n.attempt = d.attempt + 1) AS next_due_in_ms
    FROM webhook_deliveries d
    JOIN webhook_endpoints w ON w.org_id = d.org_id AND w.project_id = d.project_id AND w.id = d.trigger_id
    JOIN events e ON e.id = d.event_id
    LEFT JOIN webhook_signing_secrets s ON s.trigger_id = w.id
    WHERE d.org_id = ${key.orgId} AND d.project_id = ${key.projectId} AND d.chain_id = ${key.chainId} AND d.attempt = ${key.attempt}`);
}

export async function markHeld(db: CommonQueryMethods, key: ChainKey): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE webhook_deliveries SET held_since = COALESCE(held_since, now())
    WHERE org_id = ${key.orgId} AND project_id = ${key.projectId} AND chain_id = ${key.chainId} AND attempt = ${key.attempt} AND status = 'pending'`);
}

export interface AttemptRecord {
  status: 'delivered' | 'failed' | 'dead';
  attemptedAt: string;
  durationMs: number;
  requestUrl: string;
  requestHeaders: Record<string, string>;
  requestBody: string;
  requestBodyTruncated: boolean;
  responseStatus: number | null;
  responseHeaders: Record<string, string> | null;
  responseBody: string | null;
  responseBodyTruncated: boolean;
  error: string | null;
  /** Wait before the next attempt when status is `failed`. */
  retryInMs: number | null;
  /** The receiver answered 410 Gone: pause the endpoint. */
  pauseEndpoint: boolean;
}

/**
 * Records a failed or dead attempt (delivered ones go through recordDelivered): the row, the next attempt's
 * row, auto-pause and a 410's pause. Returns false when the row was no longer pending (a retried activity, or a
 * concurrent drain recorded it first), in which case nothing is written.
 */
export async function recordAttempt(
  db: DatabasePool,
  key: ChainKey,
  record: AttemptRecord,
): Promise<boolean> {
  const setRecorded = sql.fragment`
    status = ${record.status}, held_since = NULL, attempted_at = ${record.attemptedAt}, duration_ms = ${record.durationMs},
    request_url = ${record.requestUrl}, request_headers = ${sql.jsonb(record.requestHeaders)}, request_body = ${record.requestBody},
    request_body_truncated = ${record.requestBodyTruncated}, response_status = ${record.responseStatus},
    response_headers = ${record.responseHeaders ? sql.jsonb(record.responseHeaders) : null}, response_body = ${record.responseBody},
    response_body_truncated = ${record.responseBodyTruncated}, error = ${record.error}`;
  const pendingRow = sql.fragment`org_id = ${key.orgId} AND project_id = ${key.projectId} AND chain_id = ${key.chainId} AND attempt = ${key.attempt} AND status = 'pending'`;
  return db.transaction(async (tx) => {
    const updated = await tx.maybeOne(sql.type(
      z.object({ trigger_id: z.string(), event_id: z.string(), origin: z.string() }),
    )`
      UPDATE webhook_deliveries SET ${setRecorded} WHERE ${pendingRow}
      RETURNING trigger_id, event_id, origin`);
    if (!updated) return false;
    const endpoint = sql.fragment`org_id = ${key.orgId} AND project_id = ${key.projectId} AND id = ${updated.trigger_id}`;

    if (record.status === 'failed' && record.retryInMs !== null) {
      await tx.query(sql.unsafe`
        INSERT INTO webhook_deliveries (org_id, project_id, trigger_id, event_id, chain_id, attempt, origin, scheduled_at)
        VALUES (${key.orgId}, ${key.projectId}, ${updated.trigger_id}, ${updated.event_id}, ${key.chainId}, ${key.attempt + 1},
                ${updated.origin}, now() + make_interval(secs => ${record.retryInMs / 1000}))
        ON CONFLICT (chain_id, attempt) DO NOTHING`);
    }
    if (record.status === 'dead') {
      // Enough consecutive dead deliveries pause an active endpoint to `error` (project setting webhook_auto_pause_after).
      const project = await tx.one(sql.type(z.object({ settings: z.record(z.unknown()) }))`
        SELECT settings FROM projects WHERE org_id = ${key.orgId} AND id = ${key.projectId}`);
      const threshold = Number(effectiveSettings(project.settings).webhook_auto_pause_after);
      await tx.query(sql.unsafe`
        UPDATE webhook_endpoints SET
          consecutive_dead = consecutive_dead + 1,
          status = CASE WHEN status = 'active' AND consecutive_dead + 1 >= ${threshold} THEN 'error' ELSE status END,
          status_reason = CASE WHEN status = 'active' AND consecutive_dead + 1 >= ${threshold} THEN 'consecutive_dead' ELSE status_reason END,
          updated_at = now()
        WHERE ${endpoint}`);
    }
    if (record.pauseEndpoint) {
      await tx.query(sql.unsafe`
        UPDATE webhook_endpoints SET status = 'paused', status_reason = 'gone', updated_at = now() WHERE ${endpoint} AND status = 'active'`);
    }
    return true;
  });
}

/** A delivered attempt that needs nothing but its row and its endpoint's counters (no 410 pause). */
export interface DeliveredRecord {
  key: ChainKey;
  record: AttemptRecord;
}

/**
 * Records many delivered attempts in one statement: their rows, and each endpoint's counters once for
 * all of its rows (under a burst the endpoint row is the hot row, locked for one short statement).
 * Answers, per input, whether its row was still pending (false: already recorded, nothing written).
 */
export async function recordDelivered(db: CommonQueryMethods, items: DeliveredRecord[]): Promise<boolean[]> {
  const rows = items.map(({ key, record }) => ({
    org_id: key.orgId,
    project_id: key.projectId,
    chain_id: key.chainId,
    attempt: key.attempt,
    attempted_at: record.attemptedAt,
    duration_ms: record.durationMs,
    request_url: record.requestUrl,
    request_headers: record.requestHeaders,
    request_body: record.requestBody,
    request_body_truncated: record.requestBodyTruncated,
    response_status: record.responseStatus,
    response_headers: record.responseHeaders,
    response_body: record.responseBody,
    response_body_truncated: record.responseBodyTruncated,
  }));
  const recorded = await db.any(sql.type(z.object({ chain_id: z.bigint(), attempt: z.number() }))`
    WITH input AS (
      SELECT * FROM jsonb_to_recordset(${sql.jsonb(rows)}) AS x(
        org_id text, project_id text, chain_id bigint, attempt int, attempted_at timestamptz, duration_ms int, request_url text,
        request_headers jsonb, request_body text, request_body_truncated boolean, response_status int, response_headers jsonb,
        response_body text, response_body_truncated boolean)),
    updated AS (
      UPDATE webhook_deliveries d SET
        status = 'delivered', held_since = NULL, attempted_at = i.attempted_at, duration_ms = i.duration_ms, request_url = i.request_url,
        request_headers = i.request_headers, request_body = i.request_body, request_body_truncated = i.request_body_truncated,
        response_status = i.response_status, response_headers = i.response_headers, response_body = i.response_body,
        response_body_truncated = i.response_body_truncated, error = NULL
      FROM input i
      WHERE d.org_id = i.org_id AND d.project_id = i.project_id AND d.chain_id = i.chain_id AND d.attempt = i.attempt AND d.status = 'pending'
      RETURNING d.org_id, d.project_id, d.trigger_id, d.chain_id, d.attempt, d.attempted_at),
    counted AS (
      UPDATE webhook_endpoints w SET total_runs = w.total_runs + c.runs, last_run_at = GREATEST(w.last_run_at, c.last_run_at), consecutive_dead = 0
      FROM (SELECT org_id, project_id, trigger_id, count(*) AS runs, max(attempted_at) AS last_run_at FROM updated GROUP BY org_id, project_id, trigger_id) c
      WHERE w.org_id = c.org_id AND w.project_id = c.project_id AND w.id = c.trigger_id
      RETURNING w.id)
    SELECT chain_id, attempt FROM updated`);
  const done = new Set(recorded.map((row) => `${row.chain_id}:${row.attempt}`));
  return items.map(({ key }) => done.has(`${key.chainId}:${key.attempt}`));
}

/** A held attempt whose endpoint stayed inactive past the hold limit is dead-lettered (not counted toward auto-pause). */
export async function expireHeld(db: CommonQueryMethods, key: ChainKey): Promise<boolean> {
  const result = await db.query(sql.unsafe`
    UPDATE webhook_deliveries SET status = 'dead', error = 'endpoint_not_active', held_since = NULL
    WHERE org_id = ${key.orgId} AND project_id = ${key.projectId} AND chain_id = ${key.chainId} AND attempt = ${key.attempt}
      AND status = 'pending'`);
  return result.rowCount > 0;
}
