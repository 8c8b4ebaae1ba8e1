// Tool calls of many sessions counted and finished together: calls arriving while a count is in flight go
// out in one statement, and each still answers to its own session (its own per-minute limit, its own
// status) and opens its own row only when within that limit; finishes batch the same way, each writing its
// own row and event once; a call that breaks a shared statement fails alone.
import { sql } from 'slonik';
import { z } from 'zod';
import { ApiError, FlatError } from '../domain/errors';
import { enforceCallLimits } from '../domain/sessions/limits';
import { getSession, type SessionRow } from '../domain/sessions/sessions';
import { finishToolCall, type NewToolCall } from '../domain/sessions/tool-calls';
import { openDatabase } from '../runtime/database';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { statementsSent } from './support/pg-statements';

let gw: Gateway;
let small: Tenant;
let large: Tenant;
beforeAll(async () => {
  gw = await startGateway({ worker: false });
  [small, large] = await Promise.all([gw.createTenant(), gw.createTenant()]);
  for (const [tenant, limit] of [
    [small, 1],
    [large, 3],
  ] as const) {
    const r = await gw.request('PATCH', `/v1/projects/${tenant.projectId}/settings`, {
      key: tenant.key,
      body: { session_tool_calls_per_minute: limit },
    });
    if (r.status !== 200) throw new Error(r.text);
  }
});
afterAll(async () => {
  await gw?.stop();
});

async function openSession(tenant: Tenant): Promise<SessionRow> {
  const r = await gw.request('POST', '/v1/sessions', { key: tenant.key, body: { servers: ['gateway'] } });
  if (r.status !== 201) throw new Error(r.text);
  return getSession(gw.db, tenant.orgId, tenant.projectId, r.body.id);
}

const callOf = (session: SessionRow, projectId = session.project_id): NewToolCall => ({
  orgId: session.org_id,
  projectId,
  sessionId: session.id,
  serverId: 'gateway',
  toolName: 'wallet.balances',
  input: {},
  attemptId: null,
  routing: { gateway: 'wallet.balances' },
});

/** What each call came to: `ok`, or the status it was refused with. */
async function outcomes(calls: Array<[SessionRow, NewToolCall]>): Promise<Array<'ok' | number>> {
  // Started in one tick: the first goes out at once, the others wait for it and go together.
  const settled = await Promise.allSettled(
    calls.map(([session, call]) => enforceCallLimits(gw.db, session, [], call)),
  );
  return settled.map((s) => {
    if (s.status === 'fulfilled') return s.value.opened === null ? -1 : 'ok';
    const error = s.reason as unknown;
    return error instanceof ApiError || error instanceof FlatError ? error.status : -2;
  });
}

async function rowsOf(session: SessionRow): Promise<number> {
  return gw.db.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM tool_calls WHERE session_id = ${session.id}`);
}

/** Statements that count calls, sent while `action` runs. */
async function countingStatements(action: () => Promise<unknown>): Promise<number> {
  const sent = await statementsSent(action);
  return sent.filter((text) => text.includes('INSERT INTO session_call_windows')).length;
}

/** Calls counted in one clock minute: started a few seconds before a minute ends, wait for the next. */
async function withinOneMinute(): Promise<void> {
  const second = new Date().getUTCSeconds();
  if (second >= 55) await new Promise((resolve) => setTimeout(resolve, (61 - second) * 1000));
}

describe('calls of several sessions counted together', () => {
  it("holds every call to its own session's limit and status, and records only the calls within it", async () => {
    const [a, b, c] = await Promise.all([openSession(large), openSession(large), openSession(small)]);
    const closed = await openSession(large);
    const closing = await gw.request('POST', `/v1/sessions/${closed.id}/close`, { key: large.key });
    expect(closing.status).toBe(200);
    const unknown: SessionRow = { ...a, id: 'ses_0000000000000000000000nope' };
    await withinOneMinute();
    let result: Array<'ok' | number> = [];
    const statements = await countingStatements(async () => {
      result = await outcomes([
        [a, callOf(a)],
        [b, callOf(b)],
        [a, callOf(a)],
        [c, callOf(c)],
        [a, callOf(a)],
        [c, callOf(c)],
        [a, callOf(a)],
        [closed, callOf(closed)],
        [b, callOf(b)],
        [unknown, callOf(unknown)],
        [a, callOf(a)],
        [c, callOf(c)],
      ]);
    });
    // a: limit 3 of five calls; b: both; c (the other project, limit 1): one of three; closed: 409; unknown: 404.
    expect(result).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 429, 429, 409, 'ok', 404, 429, 429]);
    expect(await Promise.all([a, b, c, closed].map(rowsOf))).toEqual([3, 2, 1, 0]);
    // The first call alone, the eleven that arrived meanwhile in one more statement.
    expect(statements).toBe(2);
  });

  it('fails a call that breaks the statement alone, and counts every other call of its batch', async () => {
    const [a, b] = await Promise.all([openSession(large), openSession(large)]);
    await withinOneMinute();
    const result = await outcomes([
      [a, callOf(a)],
      // A row naming a project that does not exist breaks the statement that would carry it.
      [b, callOf(b, 'prj_missing')],
      [a, callOf(a)],
      [b, callOf(b)],
    ]);
    // Not an answer of the limits (the database refused the row), and only that call's.
    expect(result).toEqual(['ok', -2, 'ok', 'ok']);
    expect(await Promise.all([a, b].map(rowsOf))).toEqual([2, 1]);
  });
});

describe('calls finished together', () => {
  it('finishes each call once with its own event, and fails only the call that breaks the statement', async () => {
    const [a, b] = await Promise.all([openSession(large), openSession(large)]);
    await withinOneMinute();
    const opened = await Promise.all(
      [a, b, a].map((session) => enforceCallLimits(gw.db, session, [], callOf(session))),
    );
    const [first, second, third] = opened.map((counted) => counted.opened!);
    const scope = { orgId: large.orgId, projectId: large.projectId, environment: 'test' as const };
    const settled = await Promise.allSettled([
      finishToolCall(gw.db, scope, first, { ok: true, output: { n: 1 }, errorCode: null }),
      finishToolCall(gw.db, scope, second, { ok: false, output: null, errorCode: 'provider_error' }),
      // The same call presented again while its finish is in flight: answered as it stands, nothing written.
      finishToolCall(gw.db, scope, first, { ok: false, output: null, errorCode: 'late' }),
      // An evaluation row riding the finish that the database refuses (it has no id).
      finishToolCall(gw.db, scope, third, { ok: true, output: {}, errorCode: null }, [
        null,
        large.orgId,
        large.projectId,
        'agent',
        'tool',
        null,
        null,
        null,
        'allow',
        null,
        null,
        null,
        null,
      ]),
    ]);
    expect(
      settled.map((s) => (s.status === 'fulfilled' ? [s.value.status, s.value.error_code] : 'refused')),
    ).toEqual([['success', null], ['error', 'provider_error'], ['success', null], 'refused']);
    const events = await gw.db.any(sql.type(z.object({ call: z.string(), type: z.string() }))`
      SELECT data->>'tool_call_id' AS call, type FROM events
      WHERE data->>'tool_call_id' = ANY(${sql.array(
        [first, second, third].map((seq) => `tc_${seq}`),
        'text',
      )})
      ORDER BY type`);
    expect(events).toEqual([
      { call: `tc_${second}`, type: 'tool_call.failed' },
      { call: `tc_${first}`, type: 'tool_call.succeeded' },
    ]);
    const thirdStatus = await gw.db.oneFirst(sql.type(z.object({ status: z.string() }))`
      SELECT status FROM tool_calls WHERE seq = ${third}`);
    expect(thirdStatus).toBe('running');
  });
});

describe('statements sent often are prepared', () => {
  it('are sent unnamed by a pool told not to prepare (a pooler that cannot keep them)', async () => {
    const db = await openDatabase(gw.config.databaseUrl!, { maximumPoolSize: 1, preparedStatements: false });
    try {
      for (let i = 0; i < 5; i++)
        await db.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT ${i}::int AS n`);
      const prepared = await db.any(
        sql.type(z.object({ name: z.string() }))`SELECT name FROM pg_prepared_statements`,
      );
      expect(prepared).toEqual([]);
    } finally {
      await db.end();
    }
  });

  it('the count and the finish are parsed once per connection and answer the same past the plan cache turning generic', async () => {
    // One connection, so every statement below meets the same session's prepared statements.
    const db = await openDatabase(gw.config.databaseUrl!, { maximumPoolSize: 1 });
    try {
      const tenant = await gw.createTenant();
      const session = await openSession(tenant);
      const scope = { orgId: tenant.orgId, projectId: tenant.projectId, environment: 'test' as const };
      // PostgreSQL plans a prepared statement afresh five times before it may keep a generic plan.
      await withinOneMinute();
      const finished: Array<[string, string | null, unknown]> = [];
      const seqs = new Set<bigint>();
      for (let i = 0; i < 8; i++) {
        const { opened } = await enforceCallLimits(db, session, [], callOf(session));
        seqs.add(opened!);
        const done = await finishToolCall(db, scope, opened!, {
          ok: i % 2 === 0,
          output: { i },
          errorCode: i % 2 === 0 ? null : 'provider_error',
        });
        finished.push([done.status, done.error_code, done.output]);
      }
      expect(seqs.size).toBe(8);
      expect(finished).toEqual(
        Array.from({ length: 8 }, (_, i) =>
          i % 2 === 0 ? ['success', null, { i }] : ['error', 'provider_error', { i }],
        ),
      );
      expect(await rowsOf(session)).toBe(8);
      const prepared = await db.any(sql.type(z.object({ statement: z.string() }))`
        SELECT statement FROM pg_prepared_statements WHERE name LIKE 's\_%'`);
      expect(prepared.filter((p) => p.statement.includes('INSERT INTO session_call_windows'))).toHaveLength(
        1,
      );
      expect(prepared.filter((p) => p.statement.includes('UPDATE tool_calls'))).toHaveLength(1);
      // A statement sent once goes unnamed: only what recurs is worth a plan kept in the backend.
      const once = sql.identifier([`once_${Date.now()}`]);
      await db.one(sql.type(z.object({}).passthrough())`SELECT ${1}::int AS ${once}`);
      const kept = await db.any(sql.type(z.object({ statement: z.string() }))`
        SELECT statement FROM pg_prepared_statements WHERE statement LIKE ${`%${once.names[0]}%`}`);
      expect(kept).toEqual([]);
    } finally {
      await db.end();
    }
  });
});
