// Session quotas and rate limits, counted in PostgreSQL so every API process agrees: open sessions per
// project (`session_max_active`, checked under a per-project lock while the new one is written) and tool
// calls per session per clock minute (`session_tool_calls_per_minute`, an atomic per-window counter).
// Refusals are the spec's flat bodies with the limit fields at top level.
import { sql, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabasePool } from '../../runtime/database';
import { FlatError, notFound } from '../errors';
import { effectiveSettings } from '../tenancy/settings';
import { requireActive, sessionRow, type SessionRow } from './sessions';
import { openToolCallInsert, type NewToolCall } from './tool-calls';
import { SETTINGS } from '../../contracts/project-settings';
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
  per_minute: z.number(),
  rules: z.unknown(),
  connections: z.unknown(),
  opened: z.array(z.string().nullable()),
});

type Counted = Omit<z.infer<typeof windowRow>, 'opened'> & { opened: bigint | null };

/** The project's effective per-session minute limit, as effectiveSettings reads it, in SQL. */
function perMinute(orgId: string, projectId: string): FragmentSqlToken {
  const key = 'session_tool_calls_per_minute';
  return sql.fragment`SELECT CASE WHEN settings ? ${key} THEN (settings->>${key})::float8 ELSE ${Number(SETTINGS[key].default)} END AS per_minute
    FROM projects WHERE org_id = ${orgId} AND id = ${projectId}`;
}

/**
 * Counts the batch's calls of the session in its current minute, while it is open: the session's status as
 * it stands (a closed session counts nothing), the window's count after them, the limit, the rules, the
 * current connections of `providers`, and the seq of the row each call that asks for one opened (only a
 * call within the limit opens one: a refused call is not recorded).
 */
async function countCalls(
  db: DatabasePool,
  session: SessionRow,
  providers: string[],
  batch: Array<NewToolCall | undefined>,
): Promise<Counted[]> {
  const n = batch.length;
  const opens = batch.flatMap((call, i) =>
    call
      ? [
          sql.fragment`, ${sql.identifier([`open_${i}`])} AS (${openToolCallInsert(
            call,
            sql.fragment`(SELECT c.calls - ${n - 1 - i} <= l.per_minute FROM counted c, lim l)`,
          )})`,
        ]
      : [],
  );
  const opened = batch.map((call, i) =>
    call ? sql.fragment`(SELECT seq::text FROM ${sql.identifier([`open_${i}`])})` : sql.fragment`NULL::text`,
  );
  // One round trip: the session's status, the count, the project's limit, its rules, the connections the
  // calls may use and the calls' own rows come back from one statement.
  const counted = await db.maybeOne(sql.type(windowRow)`
    WITH s AS (
      SELECT status, close_reason FROM sessions WHERE org_id = ${session.org_id} AND id = ${session.id}
    ), counted AS (
      INSERT INTO session_call_windows (session_id, window_start, calls)
      SELECT ${session.id}, date_trunc('minute', now()), ${n} FROM s WHERE s.status = 'active'
      ON CONFLICT (session_id, window_start) DO UPDATE SET calls = session_call_windows.calls + ${n}
      RETURNING calls, GREATEST(1, ceil(extract(epoch FROM date_trunc('minute', now()) + interval '1 minute' - now())))::int AS retry_after
    ), lim AS (${perMinute(session.org_id, session.project_id)})${opens.length > 0 ? sql.join(opens, sql.fragment``) : sql.fragment``}
    SELECT s.status, s.close_reason, counted.calls, counted.retry_after, lim.per_minute,
      ${rulesJson(session.org_id, session.project_id)} AS rules,
      ${providers.length > 0 ? currentConnectionsJson({ orgId: session.org_id, projectId: session.project_id }, providers) : sql.fragment`'[]'::jsonb`} AS connections,
      ARRAY[${sql.join(opened, sql.fragment`, `)}]::text[] AS opened
    FROM s LEFT JOIN counted ON true, lim`);
  if (!counted) throw notFound('Session');
  // A session's first call of a minute also clears its windows older than that, so the table stays small.
  if (counted.calls === n)
    await db.query(
      sql.unsafe`DELETE FROM session_call_windows WHERE session_id = ${session.id} AND window_start < date_trunc('minute', now())`,
    );
  return batch.map((_, i) => ({
    ...counted,
    calls: counted.calls === null ? null : counted.calls - n + 1 + i,
    opened: counted.opened[i] ? BigInt(counted.opened[i]!) : null,
  }));
}

interface Waiting {
  open: NewToolCall | undefined;
  resolve: (counted: Counted) => void;
  reject: (error: unknown) => void;
}

/**
 * Calls of one session that arrive while its count is in flight wait and are counted together by the next
 * statement, each taking its own place in the total: a session's window row is one hot row, and updating it
 * once per call made concurrent calls of one session queue on its lock.
 */
const waitingBySession = new Map<string, Waiting[]>();

function countCall(
  db: DatabasePool,
  session: SessionRow,
  providers: string[],
  open: NewToolCall | undefined,
): Promise<Counted> {
  return new Promise((resolve, reject) => {
    const waiting = waitingBySession.get(session.id);
    if (waiting) {
      waiting.push({ open, resolve, reject });
      return;
    }
    waitingBySession.set(session.id, []);
    const run = (batch: Waiting[]): void => {
      countCalls(
        db,
        session,
        providers,
        batch.map((call) => call.open),
      )
        .then(
          (counted) => batch.forEach((call, i) => call.resolve(counted[i])),
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
    run([{ open, resolve, reject }]);
  });
}

/**
 * Counts this call in the session's current minute; past the limit it is refused with when to come back.
 * The session is checked open by the same statement (a session closed since the caller read it is the
 * 409 of requireActive), which answers the project's policy rules as they stand, for the call's gate, and
 * the current connections of `providers` (catalog servers of the session), for its dispatch. `open`: the
 * call's row, opened by the same statement when the call is within the limit (its seq is `opened`).
 */
export async function enforceCallLimits(
  db: DatabasePool,
  session: SessionRow,
  providers: string[] = [],
  open?: NewToolCall,
): Promise<{ rules: Rule[]; connections: Map<string, SealedConnection>; opened: bigint | null }> {
  const counted = await countCall(db, session, providers, open);
  requireActive({ ...session, status: counted.status, close_reason: counted.close_reason });
  const limit = counted.per_minute;
  if (counted.calls !== null && counted.calls <= limit)
    return {
      rules: rulesOf(counted.rules),
      connections: connectionsOf(counted.connections),
      opened: counted.opened,
    };
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
