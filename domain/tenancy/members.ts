// Users of an organization and their project-level role overrides. An owner's role is never narrowed.
import { sql, UniqueIntegrityConstraintViolationError } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabasePool } from '../../runtime/database';
import { ApiError, insufficientRole, notFound } from '../errors';
import { sortableId } from '../ids';
import { findProject } from './projects';

export type OrgRole = 'owner' | 'admin' | 'member';
export type ProjectRole = 'admin' | 'member';
const RANK: Record<OrgRole, number> = { owner: 0, admin: 1, member: 2 };

const userRow = z.object({
  id: z.string(),
  org_id: z.string(),
  email: z.string(),
  display_name: z.string().nullable(),
  avatar_url: z.string().nullable(),
  org_role: z.enum(['owner', 'admin', 'member']),
  created_at: z.string(),
});
export type UserRow = z.infer<typeof userRow>;

const memberRow = z.object({
  user_id: z.string(),
  role: z.enum(['owner', 'admin', 'member']),
  source: z.enum(['org', 'project']),
  email: z.string(),
  display_name: z.string().nullable(),
  avatar_url: z.string().nullable(),
  added_at: z.string(),
});
export type MemberRow = z.infer<typeof memberRow>;

export async function addUser(
  db: CommonQueryMethods,
  orgId: string,
  input: { email: string; display_name?: string | null; avatar_url?: string | null; role: OrgRole },
): Promise<UserRow> {
  try {
    return await db.one(sql.type(userRow)`
      INSERT INTO users (id, org_id, email, display_name, avatar_url, org_role)
      VALUES (${sortableId('usr')}, ${orgId}, ${input.email.toLowerCase()}, ${input.display_name ?? null},
              ${input.avatar_url ?? null}, ${input.role})
      RETURNING id, org_id, email, display_name, avatar_url, org_role, created_at`);
  } catch (error) {
    if (error instanceof UniqueIntegrityConstraintViolationError) {
      throw new ApiError(409, 'user_exists', 'A user with this email already belongs to the organization');
    }
    throw error;
  }
}

async function requireProject(db: CommonQueryMethods, orgId: string, projectId: string): Promise<void> {
  if (!(await findProject(db, orgId, projectId))) throw notFound('Project');
}

export async function listMembers(
  db: CommonQueryMethods,
  orgId: string,
  projectId: string,
): Promise<MemberRow[]> {
  await requireProject(db, orgId, projectId);
  const rows = await db.any(sql.type(memberRow)`
    SELECT u.id AS user_id,
           CASE WHEN u.org_role = 'owner' THEN 'owner' ELSE coalesce(m.role, u.org_role) END AS role,
           CASE WHEN m.user_id IS NULL OR u.org_role = 'owner' THEN 'org' ELSE 'project' END AS source,
           u.email, u.display_name, u.avatar_url,
           coalesce(m.added_at, u.created_at) AS added_at
    FROM users u
    LEFT JOIN project_members m ON m.org_id = u.org_id AND m.user_id = u.id AND m.project_id = ${projectId}
    WHERE u.org_id = ${orgId}`);
  return [...rows].sort(
    (a, b) =>
      RANK[a.role] - RANK[b.role] ||
      a.added_at.localeCompare(b.added_at) ||
      a.user_id.localeCompare(b.user_id),
  );
}

async function findUser(db: CommonQueryMethods, orgId: string, userId: string): Promise<UserRow | null> {
  return db.maybeOne(sql.type(userRow)`
    SELECT id, org_id, email, display_name, avatar_url, org_role, created_at FROM users WHERE org_id = ${orgId} AND id = ${userId}`);
}

/** The acting user's role in a project; refuses with the flat insufficient_role body below `required`. */
export async function requireRole(
  db: CommonQueryMethods,
  orgId: string,
  projectId: string,
  userId: string,
  required: OrgRole,
): Promise<void> {
  const member = (await listMembers(db, orgId, projectId)).find((row) => row.user_id === userId);
  if (!member || RANK[member.role] > RANK[required]) throw insufficientRole(required);
}

export async function setMemberRole(
  db: DatabasePool,
  orgId: string,
  projectId: string,
  userId: string,
  role: ProjectRole,
  mustExist: boolean,
): Promise<MemberRow> {
  await db.transaction(async (tx) => {
    await requireProject(tx, orgId, projectId);
    const user = await findUser(tx, orgId, userId);
    if (!user) throw new ApiError(404, 'user_not_in_org', 'The user is not a member of this organization');
    if (user.org_role === 'owner')
      throw new ApiError(409, 'cannot_override_owner', 'An owner keeps full access to every project');
    if (mustExist) {
      const updated = await tx.query(sql.unsafe`
        UPDATE project_members SET role = ${role} WHERE org_id = ${orgId} AND project_id = ${projectId} AND user_id = ${userId}`);
      if (updated.rowCount === 0) throw notFound('Project member');
      return;
    }
    await tx.query(sql.unsafe`
      INSERT INTO project_members (org_id, project_id, user_id, role) VALUES (${orgId}, ${projectId}, ${userId}, ${role})
      ON CONFLICT (project_id, user_id) DO UPDATE SET role = EXCLUDED.role`);
  });
  const member = (await listMembers(db, orgId, projectId)).find((row) => row.user_id === userId);
  if (!member) throw notFound('Project member');
  return member;
}

export async function removeMember(
  db: CommonQueryMethods,
  orgId: string,
  projectId: string,
  userId: string,
): Promise<void> {
  await requireProject(db, orgId, projectId);
  const user = await findUser(db, orgId, userId);
  if (user?.org_role === 'owner')
    throw new ApiError(409, 'cannot_override_owner', 'An owner keeps full access to every project');
  await db.query(
    sql.unsafe`DELETE FROM project_members WHERE org_id = ${orgId} AND project_id = ${projectId} AND user_id = ${userId}`,
  );
}

/** Email and name of a user, for display on whoami; null when the id is not in the organization. */
export async function findUserDisplay(
  db: CommonQueryMethods,
  orgId: string,
  userId: string,
): Promise<{ email: string; name: string | null } | null> {
  const user = await findUser(db, orgId, userId);
  return user ? { email: user.email, name: user.display_name } : null;
}
