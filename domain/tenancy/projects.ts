// Projects of an organization: create, read, rename, make default, delete. Every query names the org.
import { sql, UniqueIntegrityConstraintViolationError } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabasePool } from '../../runtime/database';
import { ApiError, notFound } from '../errors';
import { prefixedId } from '../ids';
import type { Environment } from './api-key-format';
import { checkSlug } from './slug';
import { checkSettings } from './settings';

export const projectRow = z.object({
  id: z.string(),
  org_id: z.string(),
  name: z.string(),
  slug: z.string(),
  is_default: z.boolean(),
  environment: z.enum(['live', 'test']),
  settings: z.record(z.unknown()),
  created_at: z.string(),
});
export type ProjectRow = z.infer<typeof projectRow>;

const PROJECT_COLUMNS = sql.fragment`id, org_id, name, slug, is_default, environment, settings, created_at`;

function slugConflict(error: unknown, slug: string | undefined): never {
  if (
    error instanceof UniqueIntegrityConstraintViolationError &&
    error.constraint === 'projects_org_slug_key'
  ) {
    throw new ApiError(409, 'slug_conflict', `Slug "${slug}" is already used in this organization`, { slug });
  }
  throw error;
}

export async function insertProject(
  db: CommonQueryMethods,
  input: {
    orgId: string;
    name: string;
    slug: string;
    environment: Environment;
    isDefault: boolean;
    settings?: Record<string, unknown>;
  },
): Promise<ProjectRow> {
  checkSlug(input.slug);
  const settings = input.settings ?? {};
  try {
    return await db.one(sql.type(projectRow)`
      INSERT INTO projects (id, org_id, name, slug, is_default, environment, settings)
      VALUES (${prefixedId('prj')}, ${input.orgId}, ${input.name}, ${input.slug}, ${input.isDefault},
              ${input.environment}, ${sql.jsonb(settings as never)})
      RETURNING ${PROJECT_COLUMNS}`);
  } catch (error) {
    return slugConflict(error, input.slug);
  }
}

export async function createProject(
  db: DatabasePool,
  orgId: string,
  input: { name: string; slug: string; environment: Environment; settings?: Record<string, unknown> },
): Promise<ProjectRow> {
  const settings = input.settings ? checkSettings(input.settings, {}).settings : {};
  return insertProject(db, { ...input, orgId, settings, isDefault: false });
}

export async function findProject(
  db: CommonQueryMethods,
  orgId: string,
  id: string,
): Promise<ProjectRow | null> {
  return db.maybeOne(
    sql.type(projectRow)`SELECT ${PROJECT_COLUMNS} FROM projects WHERE org_id = ${orgId} AND id = ${id}`,
  );
}

/** Looks a project up by id alone: only for the service credential, which names its target project in a header. */
export async function findProjectById(db: CommonQueryMethods, id: string): Promise<ProjectRow | null> {
  return db.maybeOne(sql.type(projectRow)`SELECT ${PROJECT_COLUMNS} FROM projects WHERE id = ${id}`);
}

export async function getProject(db: CommonQueryMethods, orgId: string, id: string): Promise<ProjectRow> {
  const row = await findProject(db, orgId, id);
  if (!row) throw notFound('Project');
  return row;
}

export async function listProjects(
  db: CommonQueryMethods,
  orgId: string,
  filter: { isDefault?: boolean; limit: number; offset: number },
): Promise<{ projects: ProjectRow[]; total: number }> {
  const where = [sql.fragment`org_id = ${orgId}`];
  if (filter.isDefault !== undefined) where.push(sql.fragment`is_default = ${filter.isDefault}`);
  const condition = sql.join(where, sql.fragment` AND `);
  const projects = await db.any(sql.type(projectRow)`
    SELECT ${PROJECT_COLUMNS} FROM projects WHERE ${condition}
    ORDER BY created_at, id LIMIT ${filter.limit} OFFSET ${filter.offset}`);
  const total = await db.oneFirst(sql.type(z.object({ count: z.number() }))`
    SELECT count(*)::int AS count FROM projects WHERE ${condition}`);
  return { projects: [...projects], total };
}

export async function updateProject(
  db: DatabasePool,
  orgId: string,
  id: string,
  patch: { name?: string; slug?: string; is_default?: boolean },
): Promise<ProjectRow> {
  if (patch.slug !== undefined) checkSlug(patch.slug);
  return db.transaction(async (tx) => {
    const current = await tx.maybeOne(sql.type(projectRow)`
      SELECT ${PROJECT_COLUMNS} FROM projects WHERE org_id = ${orgId} AND id = ${id} FOR UPDATE`);
    if (!current) throw notFound('Project');
    // Only `true` means something: the previous default is demoted in this same transaction.
    if (patch.is_default === true && !current.is_default) {
      await tx.query(
        sql.unsafe`UPDATE projects SET is_default = false WHERE org_id = ${orgId} AND is_default`,
      );
    }
    try {
      return await tx.one(sql.type(projectRow)`
        UPDATE projects SET
          name = ${patch.name ?? current.name},
          slug = ${patch.slug ?? current.slug},
          is_default = ${patch.is_default === true ? true : current.is_default}
        WHERE org_id = ${orgId} AND id = ${id}
        RETURNING ${PROJECT_COLUMNS}`);
    } catch (error) {
      return slugConflict(error, patch.slug);
    }
  });
}

/** Deletes a project and, through foreign keys, its keys, settings history, members and later its triggers, sessions and connections. */
export async function deleteProject(db: DatabasePool, orgId: string, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    // Lock the organization's projects so two deletes cannot both pass the "last project" check.
    const projects = await tx.any(sql.type(z.object({ id: z.string(), is_default: z.boolean() }))`
      SELECT id, is_default FROM projects WHERE org_id = ${orgId} ORDER BY id FOR UPDATE`);
    const target = projects.find((project) => project.id === id);
    if (!target) throw notFound('Project');
    // The last project is always the default too, so it is named first: otherwise `cannot_delete_last_project`
    // could never be answered, and the caller would be told to move a default that has nowhere to go.
    if (projects.length === 1)
      throw new ApiError(409, 'cannot_delete_last_project', 'An organization keeps at least one project');
    if (target.is_default)
      throw new ApiError(
        409,
        'cannot_delete_default',
        'The default project cannot be deleted; make another project the default first',
      );
    const consumers = await tx.exists(
      sql.unsafe`SELECT 1 FROM consumers WHERE org_id = ${orgId} AND project_id = ${id}`,
    );
    if (consumers) {
      throw new ApiError(
        409,
        'cannot_delete_with_consumer_records',
        'The project holds consumer records, which are kept for audit',
      );
    }
    await tx.query(sql.unsafe`DELETE FROM projects WHERE org_id = ${orgId} AND id = ${id}`);
  });
}
