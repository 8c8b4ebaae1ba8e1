// Session quotas and rate limits, counted in PostgreSQL so every API process agrees: open sessions per
// project (`session_max_active`, checked under a per-project lock while the new one is written) and tool
// calls per session per clock minute (`session_tool_calls_per_minute`, an atomic per-window counter).
// Refusals are the spec's flat bodies with the limit fields at top level.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabasePool } from '../../runtime/database';
import { FlatError, notFound } from '../errors';
import { effectiveSettings } from '../tenancy/settings';
import { requireActive, sessionRow, type SessionRow } from './sessions';
import { connectionsOf, currentConnectionsJson, type SealedConnection } from '../providers/connections';
import type { Rule } from '../policies/evaluate';
import { rulesJson, rulesOf } from '../policies/policies';

async function setting(
  db: CommonQueryMethods,
  orgId: string,
  projectId: string,
  key: 'session_max_active' | 'session_tool_calls_per_minute',
): Promise<number> {
  const stored = await db.oneFirst(sql.type(z.object({ settings: z.record(z.unknown()) }))`
    SELECT settings FROM projects WHERE org_id = ${orgId} AND id = ${projectId}`);
  return Number(effectiveSettings(stored)[key]);
}

/** Runs `open` (which writes the session) only while the project holds fewer open sessions than its quota. */
export async function withinSessionQuota<T>(
  db: DatabasePool,
  orgId: string,
  projectId: string,
  open: (tx: CommonQueryMethods) => Promise<T>,
): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.query(
      sql.unsafe`SELECT pg_advisory_xact_lock(hashtextextended(${`session-quota:${projectId}`}, 0))`,
    );
    const limit = await setting(tx, orgId, projectId, 'session_max_active');
    const active = await tx.oneFirst(sql.type(z.object({ n: z.number() }))`
      SELECT count(*)::int AS n FROM sessions WHERE org_id = ${orgId} AND project_id = ${projectId} AND status = 'active'`);
    if (active >= limit) {
      throw new FlatError(403, {
        error: 'quota_exceeded',
        message: `The project already holds ${active} open sessions; close one first`,
        setting: 'session_max_active',
        limit,
        active,
      });
    }
    return open(tx);
  });
}

const windowRow = z.object({
  status: sessionRow.shape.status,
  close_reason: z.string().nullable(),
  calls: z.number().nullable(),
  retry_after: z.number().nullable(),
  settings: z.record(z.unknown()),
  rules: z.unknown(),
  connections: z.unknown(),
});

type Counted = z.infer<typeof windowRow>;

/**
 * Counts `n` calls of the session in its current minute, while it is open: the session's status as it
 * stands (a closed session counts nothing), the window's count after them, the limit, the rules and the
 * current connections of `providers`.
 */
async function countCalls(
  db: DatabasePool,
  session: SessionRow,
  providers: string[],
  n: number,
): Promise<Counted> {
  // One round trip: the session's status, the count, the project's limit, its rules and the connections the
  // calls may use come back from one statement.
  const counted = await db.maybeOne(sql.type(windowRow)`
    WITH s AS (
      SELECT status, close_reason FROM sessions WHERE org_id = ${session.org_id} AND id = ${session.id}
    ), counted AS (
      INSERT INTO session_call_windows (session_id, window_start, calls)
      SELECT ${session.id}, date_trunc('minute', now()), ${n} FROM s WHERE s.status = 'active'
      ON CONFLICT (session_id, window_start) DO UPDATE SET calls = session_call_windows.calls + ${n}
      RETURNING calls, GREATEST(1, ceil(extract(epoch FROM date_trunc('minute', now()) + interval '1 minute' - now())))::int AS retry_after
    )
    SELECT s.status, s.close_reason, counted.calls, counted.retry_after, p.settings,
      ${rulesJson(session.org_id, session.project_id)} AS rules,
      ${providers.length > 0 ? currentConnectionsJson({ orgId: session.org_id, projectId: session.project_id }, providers) : sql.fragment`'[]'::jsonb`} AS connections
    FROM s LEFT JOIN counted ON true, projects p WHERE p.org_id = ${session.org_id} AND p.id = ${session.project_id}`);
  if (!counted) throw notFound('Session');
  // A session's first call of a minute also clears its windows older than that, so the table stays small.
  if (counted.calls === n)
    await db.query(
      sql.unsafe`DELETE FROM session_call_windows WHERE session_id = ${session.id} AND window_start < date_trunc('minute', now())`,
    );
  return counted;
}

interface Waiting {
  resolve: (counted: Counted) => void;
  reject: (error: unknown) => void;
}

/**
 * Calls of one session that arrive while its count is in flight wait and are counted together by the next
 * statement, each taking its own place in the total: a session's window row is one hot row, and updating it
 * once per call made concurrent calls of one session queue on its lock.
 */
const waitingBySession = new Map<string, Waiting[]>();

function countCall(db: DatabasePool, session: SessionRow, providers: string[]): Promise<Counted> {
  return new Promise((resolve, reject) => {
    const waiting = waitingBySession.get(session.id);
    if (waiting) {
      waiting.push({ resolve, reject });
      return;
    }
    waitingBySession.set(session.id, []);
    const run = (batch: Waiting[]): void => {
      countCalls(db, session, providers, batch.length)
        .then(
          (counted) =>
            batch.forEach((call, i) =>
              call.resolve({
                ...counted,
                calls: counted.calls === null ? null : counted.calls - batch.length + 1 + i,
              }),
            ),
          (error: unknown) => batch.forEach((call) => call.reject(error)),
        )
        .finally(() => {
          const next = waitingBySession.get(session.id) ?? [];
          if (next.length === 0) {
            waitingBySession.delete(session.id);
            return;
          }
          waitingBySession.set(session.id, []);
          run(next);
        });
    };
    run([{ resolve, reject }]);
  });
}

/**
 * Counts this call in the session's current minute; past the limit it is refused with when to come back.
 * The session is checked open by the same statement (a session closed since the caller read it is the
 * 409 of requireActive), which answers the project's policy rules as they stand, for the call's gate, and
 * the current connections of `providers` (catalog servers of the session), for its dispatch.
 */
export async function enforceCallLimits(
  db: DatabasePool,
  session: SessionRow,
  providers: string[] = [],
): Promise<{ rules: Rule[]; connections: Map<string, SealedConnection> }> {
  const counted = await countCall(db, session, providers);
  requireActive({ ...session, status: counted.status, close_reason: counted.close_reason });
  const limit = Number(effectiveSettings(counted.settings).session_tool_calls_per_minute);
  if (counted.calls !== null && counted.calls <= limit)
    return { rules: rulesOf(counted.rules), connections: connectionsOf(counted.connections) };
  const retryAfter = counted.retry_after ?? 60;
  throw new FlatError(
    429,
    {
      error: 'rate_limited',
      message: `The session made ${limit} tool calls this minute`,
      setting: 'session_tool_calls_per_minute',
      limit,
      window_seconds: 60,
      retry_after_seconds: retryAfter,
    },
    { 'Retry-After': String(retryAfter) },
  );
}
