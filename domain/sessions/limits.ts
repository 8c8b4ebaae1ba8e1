// Session quotas and rate limits, counted in PostgreSQL so every API process agrees: open sessions per
// project (`session_max_active`, checked under a per-project lock while the new one is written) and tool
// calls per session per clock minute (`session_tool_calls_per_minute`, an atomic per-window counter).
// Refusals are the spec's flat bodies with the limit fields at top level.
import { sql, type FragmentSqlToken, type IdentifierSqlToken } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabasePool } from '../../runtime/database';
import { batcher } from '../../runtime/batcher';
import { FlatError, notFound } from '../errors';
import { effectiveSettings } from '../tenancy/settings';
import { requireActive, sessionRow, type SessionRow } from './sessions';
import {
  NEW_TOOL_CALL_COLUMNS,
  NEW_TOOL_CALL_TYPES,
  newToolCallTuple,
  openToolCallsInsert,
  type NewToolCall,
} from './tool-calls';
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

const groupRow = z.object({
  k: z.number(),
  status: sessionRow.shape.status,
  close_reason: z.string().nullable(),
  calls: z.number().nullable(),
  retry_after: z.number().nullable(),
  per_minute: z.number(),
  rules: z.unknown(),
  connections: z.unknown(),
  opened_at: z.array(z.number()),
  opened_seq: z.array(z.string()),
});

type Counted = Omit<z.infer<typeof groupRow>, 'k' | 'opened_at' | 'opened_seq'> & { opened: bigint | null };

/** The project's effective per-session minute limit, as effectiveSettings reads it, in SQL. */
function perMinute(orgId: IdentifierSqlToken, projectId: IdentifierSqlToken): FragmentSqlToken {
  const key = 'session_tool_calls_per_minute';
  return sql.fragment`SELECT CASE WHEN settings ? ${key} THEN (settings->>${key})::float8 ELSE ${Number(SETTINGS[key].default)} END AS per_minute
    FROM projects WHERE org_id = ${orgId} AND id = ${projectId}`;
}

/** One call to count: its session as the caller read it, the providers whose connections it reads, its row. */
interface CallToCount {
  session: SessionRow;
  providers: string[];
  open: NewToolCall | undefined;
}

/** A session's calls of one statement, in arrival order. */
interface Group {
  session: SessionRow;
  providers: string[];
  calls: Array<NewToolCall | undefined>;
}

const project = (column: string) => sql.identifier(['pr', column]);

/**
 * Counts each group's calls of its session in its current minute, while it is open, all in one statement:
 * per group the session's status as it stands (a closed session counts nothing), the window's count after
 * its calls, the limit, the rules, the current connections of its providers, and the seq of the row each
 * call that asks for one opened (only a call within its own session's limit opens one: a refused call is
 * not recorded). A group whose session is not found has no row, and its calls are rejected alone.
 * The statement's text is the same whatever the batch holds (the batch travels as arrays), so PostgreSQL
 * parses and plans one small statement per batch rather than one part per call.
 */
async function countGroups(db: DatabasePool, groups: Group[]): Promise<Array<Counted[] | Error>> {
  // The project's limit, rules and connections are read once per project and providers, however many groups.
  const projects = new Map<string, number>();
  const projectRows: Array<[number, string, string, string]> = [];
  const projectOf = ({ session, providers }: Group): number => {
    const key = `${session.org_id}\n${session.project_id}\n${providers.join(',')}`;
    if (!projects.has(key)) {
      projects.set(key, projectRows.length);
      projectRows.push([projectRows.length, session.org_id, session.project_id, providers.join(',')]);
    }
    return projects.get(key)!;
  };
  const batch = groups.map((group, k) => [
    k,
    group.session.org_id,
    group.session.id,
    group.calls.length,
    projectOf(group),
  ]);
  // Each call to open with its place from the end of its group: the window's count after the group, less
  // that place, is its own count, which opens its row only within the limit.
  const opens = groups.flatMap((group, k) =>
    group.calls.flatMap((call, i) =>
      call ? [[k, i, group.calls.length - 1 - i, ...newToolCallTuple(call)]] : [],
    ),
  );
  // One round trip for every session of the batch: statuses, counts, limits, rules, connections and rows.
  // Window rows are upserted in session id order, so two statements taking the same sessions lock them alike.
  const rows = await db.any(sql.type(groupRow)`
    WITH batch AS (
      SELECT * FROM ${sql.unnest(batch, ['int4', 'text', 'text', 'int4', 'int4'])} AS b(k, org_id, session_id, n, p)
    ), s AS (
      SELECT b.k, b.n, b.p, se.id, se.status, se.close_reason FROM batch b JOIN sessions se ON se.org_id = b.org_id AND se.id = b.session_id
    ), counted AS (
      INSERT INTO session_call_windows (session_id, window_start, calls)
      SELECT s.id, date_trunc('minute', now()), s.n FROM s WHERE s.status = 'active' ORDER BY s.id
      ON CONFLICT (session_id, window_start) DO UPDATE SET calls = session_call_windows.calls + excluded.calls
      RETURNING session_id, calls, GREATEST(1, ceil(extract(epoch FROM date_trunc('minute', now()) + interval '1 minute' - now())))::int AS retry_after
    ), projects AS (
      SELECT pr.p, l.per_minute, ${rulesJson(project('org_id'), project('project_id'))} AS rules,
        CASE WHEN pr.providers = '' THEN '[]'::jsonb ELSE ${currentConnectionsJson(
          { orgId: project('org_id'), projectId: project('project_id') },
          sql.identifier(['pr', 'wanted']),
        )} END AS connections
      FROM (SELECT u.*, string_to_array(u.providers, ',') AS wanted
        FROM ${sql.unnest(projectRows, ['int4', 'text', 'text', 'text'])} AS u(p, org_id, project_id, providers)) pr
      JOIN LATERAL (${perMinute(project('org_id'), project('project_id'))}) l ON true
    ), opened AS (
      SELECT c.*, nextval(pg_get_serial_sequence('tool_calls', 'seq')) AS seq
      FROM ${sql.unnest(opens, ['int4', 'int4', 'int4', ...NEW_TOOL_CALL_TYPES])} AS c(k, i, from_end, ${NEW_TOOL_CALL_COLUMNS})
      JOIN s ON s.k = c.k JOIN counted ON counted.session_id = s.id JOIN projects ON projects.p = s.p
      WHERE counted.calls - c.from_end <= projects.per_minute
    ), inserted AS (${openToolCallsInsert(sql.identifier(['opened']))})
    SELECT s.k, s.status, s.close_reason, counted.calls, counted.retry_after, projects.per_minute, projects.rules, projects.connections,
      ARRAY(SELECT o.i FROM opened o WHERE o.k = s.k ORDER BY o.i) AS opened_at,
      ARRAY(SELECT o.seq::text FROM opened o WHERE o.k = s.k ORDER BY o.i) AS opened_seq
    FROM s LEFT JOIN counted ON counted.session_id = s.id JOIN projects ON projects.p = s.p`);
  const byGroup = new Map(rows.map((row) => [row.k, row]));
  // A session's first call of a minute also clears its windows older than that, so the table stays small.
  // The calls are counted already: should this fail, the session's next minute clears them instead.
  const fresh = groups.filter((group, k) => byGroup.get(k)?.calls === group.calls.length);
  if (fresh.length > 0)
    await db
      .query(
        sql.unsafe`DELETE FROM session_call_windows WHERE session_id = ANY(${sql.array(
          fresh.map((group) => group.session.id),
          'text',
        )}) AND window_start < date_trunc('minute', now())`,
      )
      .catch(() => undefined);
  return groups.map((group, k) => {
    const counted = byGroup.get(k);
    if (!counted) return notFound('Session');
    const { k: _, opened_at: openedAt, opened_seq: openedSeq, ...rest } = counted;
    const n = group.calls.length;
    return group.calls.map((_call, i) => {
      const at = openedAt.indexOf(i);
      return {
        ...rest,
        calls: rest.calls === null ? null : rest.calls - n + 1 + i,
        opened: at === -1 ? null : BigInt(openedSeq[at]),
      };
    });
  });
}

type Settled = { counted: Counted } | { error: unknown };

/**
 * Counts a batch of calls, of any sessions, in one statement. Should the statement fail, each call is
 * counted again on its own (a session's calls in their order), so one call's failure is never another's.
 */
async function countBatch(db: DatabasePool, items: CallToCount[]): Promise<Settled[]> {
  const groups = new Map<string, Group & { at: number[] }>();
  items.forEach((item, at) => {
    const group = groups.get(item.session.id);
    if (group) {
      group.calls.push(item.open);
      group.at.push(at);
    } else
      groups.set(item.session.id, {
        session: item.session,
        providers: item.providers,
        calls: [item.open],
        at: [at],
      });
  });
  const all = [...groups.values()];
  const settled: Settled[] = new Array<Settled>(items.length);
  try {
    const counted = await countGroups(db, all);
    all.forEach((group, k) => {
      const answer = counted[k];
      group.at.forEach((at, i) => {
        settled[at] = Array.isArray(answer) ? { counted: answer[i] } : { error: answer };
      });
    });
  } catch (error) {
    if (items.length === 1) return [{ error }];
    await Promise.all(
      all.map(async (group) => {
        for (const at of group.at) [settled[at]] = await countBatch(db, [items[at]]);
      }),
    );
  }
  return settled;
}

/**
 * Calls that arrive while a count is in flight wait and are counted together by the next statement, each
 * taking its own place in its own session's total: one round trip for the calls of many sessions, and a
 * session's window row (one hot row) updated once per statement rather than once per call.
 */
const counters = new WeakMap<DatabasePool, (item: CallToCount) => Promise<Settled>>();

async function countCall(
  db: DatabasePool,
  session: SessionRow,
  providers: string[],
  open: NewToolCall | undefined,
): Promise<Counted> {
  let count = counters.get(db);
  if (!count) {
    count = batcher((items: CallToCount[]) => countBatch(db, items), 64);
    counters.set(db, count);
  }
  const settled = await count({ session, providers, open });
  if ('error' in settled) throw settled.error;
  return settled.counted;
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
