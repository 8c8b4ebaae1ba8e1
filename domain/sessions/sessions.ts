// Sessions of the agent loop: opened for a set of servers by a key (or an OAuth grant made from one),
// listed newest first, read, and closed. A revoked key's sessions are closed by the database trigger of
// schema/sql/0720_sessions.sql, so every reader here sees that at once.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import { ApiError, notFound } from '../errors';
import { sortableId } from '../ids';
import { closingsHeard, droppedEverywhere, type OpenSessionCache } from './closings';

export const sessionRow = z.object({
  id: z.string(),
  org_id: z.string(),
  project_id: z.string(),
  key_id: z.string().nullable(),
  user_id: z.string().nullable(),
  agent_id: z.string(),
  servers: z.array(z.string()),
  status: z.enum(['active', 'closed', 'error']),
  close_reason: z.string().nullable(),
  metadata: z.record(z.unknown()),
  created_at: z.string(),
  closed_at: z.string().nullable(),
});
export type SessionRow = z.infer<typeof sessionRow>;
export type SessionStatus = SessionRow['status'];

const COLUMNS = sql.fragment`id, org_id, project_id, key_id, user_id, coalesce(agent_id, id) AS agent_id, servers, status, close_reason, metadata, created_at, closed_at`;

export interface SessionOwner {
  orgId: string;
  projectId: string;
  keyId: string | null;
  userId: string | null;
}

export interface NewSession {
  servers: string[];
  agentId: string | null;
  metadata: Record<string, unknown>;
}

export async function createSession(
  db: CommonQueryMethods,
  owner: SessionOwner,
  input: NewSession,
): Promise<SessionRow> {
  const id = sortableId('ses');
  const { servers, metadata } = input;
  return db.one(sql.type(sessionRow)`
    INSERT INTO sessions (id, org_id, project_id, key_id, user_id, agent_id, servers, metadata)
    VALUES (${id}, ${owner.orgId}, ${owner.projectId}, ${owner.keyId}, ${owner.userId}, ${input.agentId ?? id},
            ${sql.array(servers, 'text')}, ${sql.jsonb(metadata as never)})
    RETURNING ${COLUMNS}`);
}

/** A session of the caller's project; another project's is not found. */
export async function getSession(
  db: CommonQueryMethods,
  orgId: string,
  projectId: string,
  id: string,
): Promise<SessionRow> {
  const row = await db.maybeOne(sql.type(sessionRow)`
    SELECT ${COLUMNS} FROM sessions WHERE org_id = ${orgId} AND project_id = ${projectId} AND id = ${id}`);
  if (!row) throw notFound('Session');
  return row;
}

/**
 * Open sessions as this process last read them. What the tool-call path takes from a cached row never
 * changes (owner, agent, servers), and whether the session is still open is checked again by the statement
 * that counts the call (limits.ts). tools/list takes the cached row as proof that the session is open only
 * while closes are heard (closings.ts drops every closed session here, whichever process closed it).
 */
const openSessions = new Map<string, SessionRow>();
const OPEN_SESSIONS_HELD = 10_000;
// Counts drops: a row read before a drop is not cached after it (it may be the very session just closed).
let drops = 0;

export const openSessionCache: OpenSessionCache = {
  drop(id) {
    drops++;
    openSessions.delete(id);
  },
  clear() {
    drops++;
    openSessions.clear();
  },
};

async function readOpenSession(
  db: CommonQueryMethods,
  orgId: string,
  projectId: string,
  id: string,
): Promise<SessionRow> {
  const cached = openSessions.get(id);
  if (cached && cached.org_id === orgId && cached.project_id === projectId) return cached;
  const before = drops;
  const row = await getSession(db, orgId, projectId, id);
  if (row.status === 'active' && drops === before) {
    if (openSessions.size >= OPEN_SESSIONS_HELD) openSessions.clear();
    openSessions.set(id, row);
  } else if (row.status !== 'active') openSessions.delete(id);
  return row;
}

/** A session of the caller's project about to take a tool call: from this process's cache when it is there. */
export async function getSessionForCall(
  db: CommonQueryMethods,
  orgId: string,
  projectId: string,
  id: string,
): Promise<SessionRow> {
  return readOpenSession(db, orgId, projectId, id);
}

/** A session of the caller's project as it stands now: from the cache only while closes are heard. */
export async function getSessionNow(
  db: CommonQueryMethods,
  orgId: string,
  projectId: string,
  id: string,
): Promise<SessionRow> {
  return closingsHeard() ? readOpenSession(db, orgId, projectId, id) : getSession(db, orgId, projectId, id);
}

/** A session found closed is no longer answered from the cache. */
export function forgetOpenSession(id: string): void {
  openSessionCache.drop(id);
}

/** The session must still be open for a new call; a closed one answers 409 with why it closed. */
export function requireActive(row: SessionRow): void {
  if (row.status === 'active') return;
  forgetOpenSession(row.id);
  throw new ApiError(
    409,
    'session_closed',
    row.close_reason === 'key_revoked'
      ? 'The session ended when the key it was opened with was revoked'
      : `The session is ${row.status}; open a new one`,
    { status: row.status, close_reason: row.close_reason },
  );
}

export async function listSessions(
  db: CommonQueryMethods,
  orgId: string,
  projectId: string,
  filter: { status?: SessionStatus; limit: number; startingAfter?: string },
): Promise<SessionRow[]> {
  const where = [sql.fragment`org_id = ${orgId}`, sql.fragment`project_id = ${projectId}`];
  if (filter.status) where.push(sql.fragment`status = ${filter.status}`);
  if (filter.startingAfter) where.push(sql.fragment`id < ${filter.startingAfter}`);
  const rows = await db.any(sql.type(sessionRow)`
    SELECT ${COLUMNS} FROM sessions WHERE ${sql.join(where, sql.fragment` AND `)} ORDER BY id DESC LIMIT ${filter.limit}`);
  return [...rows];
}

/** Closing is idempotent: a session already closed is answered as it stands. */
export async function closeSession(
  db: CommonQueryMethods,
  orgId: string,
  projectId: string,
  id: string,
): Promise<SessionRow> {
  const closed = await db.maybeOne(sql.type(sessionRow)`
    UPDATE sessions SET status = 'closed', close_reason = 'closed_by_caller', closed_at = now()
    WHERE org_id = ${orgId} AND project_id = ${projectId} AND id = ${id} AND status = 'active'
    RETURNING ${COLUMNS}`);
  forgetOpenSession(id);
  if (!closed) return getSession(db, orgId, projectId, id);
  // Answered once no API process answers for the session any more.
  await droppedEverywhere(id);
  return closed;
}

/** The most recent open session of a key with exactly these servers: `/mcp` without an id resumes it. */
export async function findOpenSessionOfKey(
  db: CommonQueryMethods,
  owner: SessionOwner,
): Promise<SessionRow | null> {
  return db.maybeOne(sql.type(sessionRow)`
    SELECT ${COLUMNS} FROM sessions
    WHERE org_id = ${owner.orgId} AND project_id = ${owner.projectId} AND status = 'active'
      AND key_id IS NOT DISTINCT FROM ${owner.keyId} AND metadata->>'opened_by' = 'mcp'
    ORDER BY id DESC LIMIT 1`);
}
