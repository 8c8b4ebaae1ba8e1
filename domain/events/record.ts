// Writes an event into the outbox. Call it with the transaction that makes the change, so the
// event exists exactly when the change does; delivery picks it up after commit.
import { sql, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import { sortableId } from '../ids';
import type { Environment } from '../tenancy/api-key-format';
import type { EventType } from '../../contracts/event-catalog';
import { afterCommit } from '../../runtime/telemetry/after-commit';
import { countEvent } from '../../runtime/telemetry/metrics';

export interface EventScope {
  orgId: string;
  projectId: string;
  environment: Environment;
}

export interface RecordedEvent {
  id: string;
  type: string;
  created_at: string;
}

const recorded = z.object({ id: z.string(), type: z.string(), created_at: z.string() });

/** Event data must be JSON: bigints travel as decimal strings, as everywhere in the API. */
export function toEventData(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? v.toString() : v)));
}

/** `type` comes from the catalog; the database refuses any other (schema/sql/0560_event_catalog.sql). */
export async function recordEvent(
  tx: CommonQueryMethods,
  scope: EventScope,
  type: EventType,
  data: unknown,
): Promise<RecordedEvent> {
  const event = await tx.one(sql.type(recorded)`
    INSERT INTO events (id, org_id, project_id, environment, type, data)
    VALUES (${sortableId('evt')}, ${scope.orgId}, ${scope.projectId}, ${scope.environment}, ${type}, ${sql.jsonb(toEventData(data) as never)})
    RETURNING id, type, created_at`);
  afterCommit(tx, () => countEvent(type, data));
  return event;
}

/**
 * The outbox insert of an event whose data the same statement builds (`data`: a query of one jsonb column,
 * no row when nothing changed), for a change and its event written in one statement rather than a
 * transaction of several. Count it with `countEvent` once the statement has run.
 */
export function eventInsertFrom(
  scope: EventScope,
  type: EventType,
  data: FragmentSqlToken,
): FragmentSqlToken {
  return sql.fragment`
    INSERT INTO events (id, org_id, project_id, environment, type, data)
    SELECT ${sortableId('evt')}, ${scope.orgId}, ${scope.projectId}, ${scope.environment}, ${type}, d.data FROM (${data}) AS d(data)`;
}

/**
 * The outbox insert of many events a statement builds at once (`rows`: a query of id, org id, project id,
 * environment, the type's place in `types` counted from 1, and jsonb data, in that order). Count each
 * with `countEvent` once the statement has run.
 */
export function eventsInsertFrom(types: readonly EventType[], rows: FragmentSqlToken): FragmentSqlToken {
  return sql.fragment`
    INSERT INTO events (id, org_id, project_id, environment, type, data)
    SELECT r.id, r.org_id, r.project_id, r.environment, (${sql.array([...types], 'text')})[r.type_at], r.data
    FROM (${rows}) AS r(id, org_id, project_id, environment, type_at, data)`;
}
