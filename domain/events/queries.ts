// Reads of the event log (the outbox doubles as it): list newest first and fetch one, always within
// the caller's organization and project.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import { notFound } from '../errors';
import type { EventType } from '../../contracts/event-catalog';

export const eventRow = z.object({
  id: z.string(),
  org_id: z.string(),
  project_id: z.string(),
  environment: z.enum(['live', 'test']),
  type: z.string(),
  data: z.unknown(),
  created_at: z.string(),
  dispatched_at: z.string().nullable(),
});
export type EventRow = z.infer<typeof eventRow>;

const COLUMNS = sql.fragment`id, org_id, project_id, environment, type, data, created_at, dispatched_at`;

export interface EventScope {
  orgId: string;
  projectId: string;
}

/** Newest first by time-sortable id; `before` is the last id of the previous page. */
export async function listEvents(
  db: CommonQueryMethods,
  scope: EventScope,
  filter: { type?: string; before?: string; limit: number },
): Promise<{ rows: EventRow[]; nextBefore: string | null }> {
  const where = [sql.fragment`org_id = ${scope.orgId}`, sql.fragment`project_id = ${scope.projectId}`];
  if (filter.type) where.push(sql.fragment`type = ${filter.type}`);
  if (filter.before) where.push(sql.fragment`id < ${filter.before}`);
  const rows = await db.any(sql.type(eventRow)`
    SELECT ${COLUMNS} FROM events WHERE ${sql.join(where, sql.fragment` AND `)} ORDER BY id DESC LIMIT ${filter.limit + 1}`);
  const page = rows.slice(0, filter.limit);
  return { rows: page, nextBefore: rows.length > filter.limit ? page[page.length - 1].id : null };
}

export async function findEvent(
  db: CommonQueryMethods,
  scope: EventScope,
  id: string,
): Promise<EventRow | null> {
  return db.maybeOne(
    sql.type(
      eventRow,
    )`SELECT ${COLUMNS} FROM events WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND id = ${id}`,
  );
}

export async function getEvent(db: CommonQueryMethods, scope: EventScope, id: string): Promise<EventRow> {
  const row = await findEvent(db, scope, id);
  if (!row) throw notFound('Event');
  return row;
}

/** A test-fire's event: stored like any other but born dispatched, so the fan-out never sends it to subscribers. */
export async function insertUndispatchableEvent(
  db: CommonQueryMethods,
  scope: EventScope & { environment: 'live' | 'test' },
  id: string,
  type: EventType,
  data: unknown,
): Promise<EventRow> {
  return db.one(sql.type(eventRow)`
    INSERT INTO events (id, org_id, project_id, environment, type, data, dispatched_at)
    VALUES (${id}, ${scope.orgId}, ${scope.projectId}, ${scope.environment}, ${type}, ${sql.jsonb(data as never)}, now())
    RETURNING ${COLUMNS}`);
}
