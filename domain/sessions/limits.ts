// Session quotas and rate limits, counted in PostgreSQL so every API process agrees: open sessions per
// project (`session_max_active`, checked under a per-project lock while the new one is written) and tool
// calls per session per clock minute (`session_tool_calls_per_minute`, an atomic per-window counter).
// Refusals are the spec's flat bodies with the limit fields at top level.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabasePool } from '../../runtime/database';
import { FlatError } from '../errors';
import { effectiveSettings } from '../tenancy/settings';
import type { SessionRow } from './sessions';
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
  calls: z.number(),
  retry_after: z.number(),
  settings: z.record(z.unknown()),
  rules: z.unknown(),
});

/**
 * Counts this call in the session's current minute; past the limit it is refused with when to come back.
 * Answers the project's policy rules as they stand, read by the same statement for the call's gate.
 */
export async function enforceCallLimits(
  db: CommonQueryMethods,
  session: SessionRow,
): Promise<{ rules: Rule[] }> {
  // One round trip on every tool call: the count, the project's limit and its rules come back from one statement.
  const counted = await db.one(sql.type(windowRow)`
    WITH counted AS (
      INSERT INTO session_call_windows (session_id, window_start, calls) VALUES (${session.id}, date_trunc('minute', now()), 1)
      ON CONFLICT (session_id, window_start) DO UPDATE SET calls = session_call_windows.calls + 1
      RETURNING calls, GREATEST(1, ceil(extract(epoch FROM date_trunc('minute', now()) + interval '1 minute' - now())))::int AS retry_after
    )
    SELECT counted.calls, counted.retry_after, p.settings, ${rulesJson(session.org_id, session.project_id)} AS rules
    FROM counted, projects p WHERE p.org_id = ${session.org_id} AND p.id = ${session.project_id}`);
  const limit = Number(effectiveSettings(counted.settings).session_tool_calls_per_minute);
  // A session's first call of a minute also clears its windows older than that, so the table stays small.
  if (counted.calls === 1)
    await db.query(
      sql.unsafe`DELETE FROM session_call_windows WHERE session_id = ${session.id} AND window_start < date_trunc('minute', now())`,
    );
  if (counted.calls <= limit) return { rules: rulesOf(counted.rules) };
  throw new FlatError(
    429,
    {
      error: 'rate_limited',
      message: `The session made ${limit} tool calls this minute`,
      setting: 'session_tool_calls_per_minute',
      limit,
      window_seconds: 60,
      retry_after_seconds: counted.retry_after,
    },
    { 'Retry-After': String(counted.retry_after) },
  );
}
