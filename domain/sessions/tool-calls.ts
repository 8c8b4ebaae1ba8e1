// Tool calls of a session: a row opened as `running` when the call is dispatched, finished once with its
// outcome and timing and, in the same transaction, its `tool_call.succeeded` / `tool_call.failed` event.
// Ids are `tc_` plus the row's bigserial.
import { sql, type FragmentSqlToken, type IdentifierSqlToken } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabasePool } from '../../runtime/database';
import { batcher } from '../../runtime/batcher';
import { notFound } from '../errors';
import { eventsInsertFrom, type EventScope } from '../events/record';
import { evaluationsInsert, type EvaluationValues } from '../policies/gate';
import { sortableId } from '../ids';
import { countEvent } from '../../runtime/telemetry/metrics';

export const toolCallRow = z.object({
  seq: z.bigint(),
  org_id: z.string(),
  project_id: z.string(),
  session_id: z.string(),
  server_id: z.string(),
  tool_name: z.string(),
  status: z.enum(['running', 'success', 'error']),
  input: z.record(z.unknown()),
  output: z.unknown().nullable(),
  error_code: z.string().nullable(),
  duration_ms: z.number().nullable(),
  attempt_id: z.string().nullable(),
  approval_id: z.string().nullable(),
  routing: z.record(z.unknown()),
  failover_trail: z.array(z.unknown()),
  called_at: z.string(),
  finished_at: z.string().nullable(),
});
export type ToolCallRow = z.infer<typeof toolCallRow>;

const COLUMNS = sql.fragment`seq, org_id, project_id, session_id, server_id, tool_name, status, input, output, error_code, duration_ms,
  attempt_id, approval_id, routing, failover_trail, called_at, finished_at`;

export const toolCallId = (row: Pick<ToolCallRow, 'seq'>): string => `tc_${row.seq}`;

/** `tc_<digits>` → the bigserial, or null for anything else (which is then simply not found). */
export function toolCallSeq(id: string): bigint | null {
  const match = /^tc_([1-9][0-9]{0,18})$/.exec(id);
  return match && BigInt(match[1]) <= 9_223_372_036_854_775_807n ? BigInt(match[1]) : null;
}

export interface NewToolCall {
  orgId: string;
  projectId: string;
  sessionId: string;
  serverId: string;
  toolName: string;
  input: Record<string, unknown>;
  attemptId: string | null;
  routing: Record<string, unknown>;
}

/**
 * Opens the call's row. With an attempt id the same call presented again finds its earlier row
 * (`created: false`), so a paying call is recorded once however often it is retried.
 */
export async function openToolCall(
  db: CommonQueryMethods,
  call: NewToolCall,
): Promise<{ row: ToolCallRow; created: boolean }> {
  const inserted = await db.maybeOne(sql.type(toolCallRow)`
    INSERT INTO tool_calls (org_id, project_id, session_id, server_id, tool_name, input, attempt_id, routing)
    VALUES (${call.orgId}, ${call.projectId}, ${call.sessionId}, ${call.serverId}, ${call.toolName}, ${sql.jsonb(call.input as never)},
            ${call.attemptId}, ${sql.jsonb(call.routing as never)})
    ON CONFLICT (session_id, attempt_id) WHERE attempt_id IS NOT NULL DO NOTHING
    RETURNING ${COLUMNS}`);
  if (inserted) return { row: inserted, created: true };
  const existing = await db.one(sql.type(toolCallRow)`
    SELECT ${COLUMNS} FROM tool_calls WHERE session_id = ${call.sessionId} AND attempt_id = ${call.attemptId}`);
  return { row: existing, created: false };
}

/** A new call's columns as a row of a statement's `unnest` (NEW_TOOL_CALL_TYPES), which openToolCallsInsert reads. */
export const newToolCallTuple = (call: NewToolCall): string[] => [
  call.orgId,
  call.projectId,
  call.sessionId,
  call.serverId,
  call.toolName,
  JSON.stringify(call.input),
  JSON.stringify(call.routing),
];
export const NEW_TOOL_CALL_COLUMNS = sql.fragment`org_id, project_id, session_id, server_id, tool_name, input, routing`;
export const NEW_TOOL_CALL_TYPES = ['text', 'text', 'text', 'text', 'text', 'text', 'text'];

/**
 * The insert that opens calls' rows, for another statement to carry (the calls' count, limits.ts): one row
 * per row of `source`, which holds NEW_TOOL_CALL_COLUMNS (input and routing as JSON text) and the `seq`
 * each row takes. A call with an attempt id opens through openToolCall.
 */
export function openToolCallsInsert(source: IdentifierSqlToken): FragmentSqlToken {
  return sql.fragment`
    INSERT INTO tool_calls (seq, org_id, project_id, session_id, server_id, tool_name, input, attempt_id, routing)
    SELECT seq, org_id, project_id, session_id, server_id, tool_name, input::jsonb, NULL, routing::jsonb FROM ${source}`;
}

export interface ToolCallOutcome {
  ok: boolean;
  output: unknown;
  errorCode: string | null;
  approvalId?: string | null;
  /** Frees the call's attempt id: the attempt never ran, so presenting it again is a new call. */
  releaseAttempt?: boolean;
}

/**
 * running → success | error, once, with its event written by the same statement (and `evaluation`, the
 * call's policy evaluation row, with them). A call already finished (a replay presenting it again) is
 * returned as it stands and writes nothing.
 */
export async function finishToolCall(
  db: DatabasePool,
  scope: EventScope,
  seq: bigint,
  outcome: ToolCallOutcome,
  evaluation?: EvaluationValues,
): Promise<ToolCallRow> {
  return (await finish(db, scope, seq, outcome, { whileSessionActive: false, evaluation }))!;
}

/** As finishToolCall, but only while the call's session is still active: null when it has closed since. */
export async function finishToolCallInActiveSession(
  db: DatabasePool,
  scope: EventScope,
  seq: bigint,
  outcome: ToolCallOutcome,
  evaluation?: EvaluationValues,
): Promise<ToolCallRow | null> {
  return finish(db, scope, seq, outcome, { whileSessionActive: true, evaluation });
}

interface Finish {
  scope: EventScope;
  seq: bigint;
  outcome: ToolCallOutcome;
  whileSessionActive: boolean;
  evaluation?: EvaluationValues;
}

const finishedRow = toolCallRow.extend({ k: z.number() });

/**
 * Finishes every call of `items` (no seq twice) in one statement: each one's row when it finished now. The
 * calls travel as arrays (their columns named apart from the table's), so the statement's text is the
 * same however many it finishes and PostgreSQL plans one small statement per batch. Each call's policy
 * evaluation is written whether or not the call finishes.
 */
async function finishTogether(db: DatabasePool, items: Finish[]): Promise<Array<ToolCallRow | undefined>> {
  const calls = items.map(({ scope, seq, outcome, whileSessionActive }, k) => [
    k,
    scope.orgId,
    scope.projectId,
    scope.environment,
    sortableId('evt'),
    seq.toString(),
    outcome.ok,
    JSON.stringify(outcome.output ?? null),
    outcome.errorCode,
    outcome.approvalId ?? null,
    outcome.releaseAttempt ?? false,
    whileSessionActive,
  ]);
  const evaluations = items.flatMap((item) => (item.evaluation ? [item.evaluation] : []));
  const rows = await db.any(sql.type(finishedRow)`
    WITH f AS (
      SELECT * FROM ${sql.unnest(calls, ['int4', 'text', 'text', 'text', 'text', 'int8', 'bool', 'text', 'text', 'text', 'bool', 'bool'])}
        AS f(k, scope_org, scope_project, scope_environment, event_id, target_seq, ok, new_output, new_error_code,
             new_approval_id, release_attempt, while_active)
    ), ${evaluations.length > 0 ? sql.fragment`evaluated AS (${evaluationsInsert(evaluations)}), ` : sql.fragment``}done AS (
      UPDATE tool_calls SET status = CASE WHEN f.ok THEN 'success' ELSE 'error' END, output = f.new_output::jsonb,
        error_code = f.new_error_code, approval_id = coalesce(f.new_approval_id, approval_id), finished_at = clock_timestamp(),
        attempt_id = CASE WHEN f.release_attempt THEN NULL ELSE attempt_id END,
        duration_ms = GREATEST(0, round(extract(epoch FROM clock_timestamp() - called_at) * 1000))::int
      FROM f
      WHERE tool_calls.org_id = f.scope_org AND tool_calls.seq = f.target_seq AND tool_calls.status = 'running'
        AND (NOT f.while_active OR EXISTS (SELECT 1 FROM sessions s WHERE s.id = tool_calls.session_id AND s.status = 'active'))
      RETURNING f.k, f.scope_org, f.scope_project, f.scope_environment, f.event_id, f.ok, ${COLUMNS}
    ), events AS (
      ${eventsInsertFrom(
        ['tool_call.succeeded', 'tool_call.failed'],
        sql.fragment`SELECT event_id, scope_org, scope_project, scope_environment,
          CASE WHEN ok THEN 1 ELSE 2 END,
          jsonb_build_object('tool_call_id', 'tc_' || seq, 'session_id', session_id, 'server_id', server_id,
            'tool_name', tool_name, 'duration_ms', duration_ms, 'error_code', error_code, 'attempt_id', attempt_id,
            'approval_id', approval_id)
        FROM done`,
      )}
    )
    SELECT k, ${COLUMNS} FROM done`);
  const byItem = new Map(rows.map(({ k, ...row }) => [k, row]));
  return items.map((item, k) => {
    const row = byItem.get(k);
    if (row) countEvent(item.outcome.ok ? 'tool_call.succeeded' : 'tool_call.failed', null);
    return row;
  });
}

type Finished = { row: ToolCallRow | undefined } | { error: unknown };

/**
 * Finishes a batch of calls in one statement (a seq named twice goes in a statement of its own). Should
 * the statement fail, each call is finished again on its own, so one call's failure is never another's.
 */
async function finishBatch(db: DatabasePool, items: Finish[]): Promise<Finished[]> {
  const seen = new Set<bigint>();
  const now: number[] = [];
  const later: number[] = [];
  items.forEach((item, at) => {
    (seen.has(item.seq) ? later : now).push(at);
    seen.add(item.seq);
  });
  const finished: Finished[] = new Array<Finished>(items.length);
  try {
    const rows = await finishTogether(
      db,
      now.map((at) => items[at]),
    );
    now.forEach((at, i) => (finished[at] = { row: rows[i] }));
  } catch (error) {
    if (now.length === 1) finished[now[0]] = { error };
    else
      await Promise.all(
        now.map(async (at) => {
          [finished[at]] = await finishBatch(db, [items[at]]);
        }),
      );
  }
  if (later.length > 0) {
    const rest = await finishBatch(
      db,
      later.map((at) => items[at]),
    );
    later.forEach((at, i) => (finished[at] = rest[i]));
  }
  return finished;
}

/**
 * Finishes that arrive while one is in flight wait and go together in the next statement: a call's last
 * write (its row and its event) is one round trip shared by every call finishing at that moment.
 */
const finishers = new WeakMap<DatabasePool, (item: Finish) => Promise<Finished>>();

async function finish(
  db: DatabasePool,
  scope: EventScope,
  seq: bigint,
  outcome: ToolCallOutcome,
  options: { whileSessionActive: boolean; evaluation?: EvaluationValues },
): Promise<ToolCallRow | null> {
  let finishOne = finishers.get(db);
  if (!finishOne) {
    finishOne = batcher((items: Finish[]) => finishBatch(db, items), 64);
    finishers.set(db, finishOne);
  }
  const finished = await finishOne({ scope, seq, outcome, ...options });
  if ('error' in finished) throw finished.error;
  if (finished.row) return finished.row;
  const current = await db.one(
    sql.type(toolCallRow)`SELECT ${COLUMNS} FROM tool_calls WHERE org_id = ${scope.orgId} AND seq = ${seq}`,
  );
  return options.whileSessionActive && current.status === 'running' ? null : current;
}

export async function getToolCall(
  db: CommonQueryMethods,
  orgId: string,
  projectId: string,
  sessionId: string,
  id: string,
): Promise<ToolCallRow> {
  const seq = toolCallSeq(id);
  const row =
    seq === null
      ? null
      : await db.maybeOne(sql.type(toolCallRow)`
    SELECT ${COLUMNS} FROM tool_calls WHERE org_id = ${orgId} AND project_id = ${projectId} AND session_id = ${sessionId} AND seq = ${seq}`);
  if (!row) throw notFound('Tool call');
  return row;
}

export async function listToolCalls(
  db: CommonQueryMethods,
  orgId: string,
  projectId: string,
  sessionId: string,
  filter: { limit: number; startingAfter?: string },
): Promise<ToolCallRow[]> {
  const before = filter.startingAfter === undefined ? null : toolCallSeq(filter.startingAfter);
  const rows = await db.any(sql.type(toolCallRow)`
    SELECT ${COLUMNS} FROM tool_calls
    WHERE org_id = ${orgId} AND project_id = ${projectId} AND session_id = ${sessionId}
      ${before === null ? sql.fragment`` : sql.fragment`AND seq < ${before}`}
    ORDER BY seq DESC LIMIT ${filter.limit}`);
  return [...rows];
}
