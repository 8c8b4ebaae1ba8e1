// Generated servers of one organization and project in PostgreSQL: created from a draft with its tools
// in one transaction, listed, read with their tools, edited (name, description, base URLs; each tool's
// name, description and whether it is exposed), published as a new immutable version, the versions
// listed, archived (retired as a provider, still readable) and unarchived. The provider side (a published
// version looked up by slug) is in provider-lookup.ts.
import { sql, UniqueIntegrityConstraintViolationError } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabasePool } from '../../runtime/database';
import { ApiError } from '../errors';
import { prefixedId } from '../ids';
import type { GeneratedDraft } from './generate';
import type { DraftTool } from './operations';

export interface GeneratedServerScope {
  orgId: string;
  projectId: string;
}

export const generatedServerRow = z.object({
  id: z.string(),
  name: z.string(),
  version: z.string(),
  description: z.string().nullable(),
  status: z.enum(['draft', 'published', 'archived']),
  tool_count: z.number(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type GeneratedServerRow = z.infer<typeof generatedServerRow>;

const detailRow = generatedServerRow.extend({
  slug: z.string().nullable(),
  source: z.record(z.unknown()),
  auth: z.record(z.unknown()).nullable(),
  base_urls: z.record(z.string().nullable()),
  verify: z.record(z.unknown()).nullable(),
  published_version: z.number().nullable(),
  published_at: z.string().nullable(),
});
export type GeneratedServerDetailRow = z.infer<typeof detailRow>;

const toolRow = z.object({
  operation_key: z.string(),
  name: z.string(),
  description: z.string(),
  exposed: z.boolean(),
  input_schema: z.record(z.unknown()),
  operation: z.record(z.unknown()),
});
export type GeneratedToolRow = z.infer<typeof toolRow>;

const versionRow = z.object({ version: z.number(), tool_count: z.number(), published_at: z.string() });

const COLUMNS = sql.fragment`id, name, version, description, status, tool_count, created_at, updated_at`;
const DETAIL = sql.fragment`${COLUMNS}, slug, source, auth, base_urls, verify, published_version, published_at`;
const TOOL_COLUMNS = sql.fragment`operation_key, name, description, exposed, input_schema, operation`;

const notFound = () => new ApiError(404, 'not_found', "No such generated server in the caller's project");
const jsonb = (value: unknown) => sql.jsonb(value as Parameters<typeof sql.jsonb>[0]);

/** The project's generated servers, newest first. */
export async function listGeneratedServers(
  db: CommonQueryMethods,
  scope: GeneratedServerScope,
): Promise<readonly GeneratedServerRow[]> {
  return db.any(sql.type(generatedServerRow)`
    SELECT ${COLUMNS} FROM generated_servers
    WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId}
    ORDER BY created_at DESC, id DESC`);
}

/** Records a newly generated server as a draft. */
export async function recordGeneratedServer(
  db: CommonQueryMethods,
  scope: GeneratedServerScope,
  server: { name: string; description: string | null; toolCount: number; version?: string },
): Promise<GeneratedServerRow> {
  return db.one(sql.type(generatedServerRow)`
    INSERT INTO generated_servers (id, org_id, project_id, name, version, description, tool_count)
    VALUES (${prefixedId('gsrv')}, ${scope.orgId}, ${scope.projectId}, ${server.name},
      ${server.version ?? '0.1.0'}, ${server.description}, ${server.toolCount})
    RETURNING ${COLUMNS}`);
}

/** A draft and all its tools in one transaction; a slug any server already answers to is 409 `slug_conflict`. */
export async function createGeneratedServer(
  db: DatabasePool,
  scope: GeneratedServerScope,
  slug: string,
  draft: GeneratedDraft,
): Promise<GeneratedServerDetailRow> {
  const conflict = () => new ApiError(409, 'slug_conflict', `The slug "${slug}" is taken`, { slug });
  try {
    return await db.transaction(async (tx) => {
      if (await tx.exists(sql.unsafe`SELECT 1 FROM tool_servers WHERE slug = ${slug}`)) throw conflict();
      const id = prefixedId('gsrv');
      const row = await tx.one(sql.type(detailRow)`
        INSERT INTO generated_servers (id, org_id, project_id, name, version, description, tool_count, slug, source,
          auth, base_urls, verify)
        VALUES (${id}, ${scope.orgId}, ${scope.projectId}, ${draft.name}, '0', ${draft.description},
          ${draft.tools.length}, ${slug}, ${jsonb(draft.source)}, ${jsonb(draft.auth)}, ${jsonb(draft.baseUrls)},
          ${jsonb(draft.verify)})
        RETURNING ${DETAIL}`);
      await insertTools(tx, id, draft.tools);
      return row;
    });
  } catch (error) {
    if (error instanceof UniqueIntegrityConstraintViolationError) throw conflict();
    throw error;
  }
}

async function insertTools(db: CommonQueryMethods, serverId: string, tools: DraftTool[]): Promise<void> {
  // One statement for every tool: a large document is one round trip, not hundreds.
  await db.query(sql.unsafe`
    INSERT INTO generated_server_tools (server_id, position, operation_key, name, description, input_schema, operation)
    SELECT ${serverId}, t.position, t.operation_key, t.name, t.description, t.input_schema, t.operation
    FROM jsonb_to_recordset(${jsonb(
      tools.map((tool, position) => ({
        position,
        operation_key: tool.operationKey,
        name: tool.name,
        description: tool.description,
        input_schema: tool.inputSchema,
        operation: tool.operation,
      })),
    )}) AS t(position integer, operation_key text, name text, description text, input_schema jsonb, operation jsonb)`);
}

export async function getGeneratedServer(
  db: CommonQueryMethods,
  scope: GeneratedServerScope,
  id: string,
): Promise<GeneratedServerDetailRow> {
  const row = await db.maybeOne(sql.type(detailRow)`
    SELECT ${DETAIL} FROM generated_servers
    WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND id = ${id}`);
  if (!row) throw notFound();
  return row;
}

export async function listGeneratedTools(
  db: CommonQueryMethods,
  serverId: string,
): Promise<readonly GeneratedToolRow[]> {
  return db.any(sql.type(toolRow)`
    SELECT ${TOOL_COLUMNS} FROM generated_server_tools WHERE server_id = ${serverId} ORDER BY position`);
}

export interface ServerEdit {
  name?: string;
  description?: string | null;
  base_urls?: { live?: string | null; test?: string | null };
}

export async function editGeneratedServer(
  db: CommonQueryMethods,
  scope: GeneratedServerScope,
  id: string,
  edit: ServerEdit,
): Promise<GeneratedServerDetailRow> {
  const row = await db.maybeOne(sql.type(detailRow)`
    UPDATE generated_servers SET
      name = COALESCE(${edit.name ?? null}, name),
      description = CASE WHEN ${edit.description !== undefined} THEN ${edit.description ?? null} ELSE description END,
      base_urls = base_urls || ${jsonb(edit.base_urls ?? {})},
      updated_at = now()
    WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND id = ${id} AND slug IS NOT NULL
    RETURNING ${DETAIL}`);
  if (!row) throw notFound();
  return row;
}

export interface ToolEdit {
  name?: string;
  description?: string;
  exposed?: boolean;
}

/** Edits one tool of the draft, found by its current name; a name another tool has is 409 `tool_name_taken`. */
export async function editGeneratedTool(
  db: DatabasePool,
  scope: GeneratedServerScope,
  id: string,
  toolName: string,
  edit: ToolEdit,
): Promise<GeneratedToolRow> {
  try {
    return await db.transaction(async (tx) => {
      await getGeneratedServer(tx, scope, id);
      const row = await tx.maybeOne(sql.type(toolRow)`
        UPDATE generated_server_tools SET
          name = COALESCE(${edit.name ?? null}, name),
          description = COALESCE(${edit.description ?? null}, description),
          exposed = COALESCE(${edit.exposed ?? null}::boolean, exposed)
        WHERE server_id = ${id} AND name = ${toolName}
        RETURNING ${TOOL_COLUMNS}`);
      if (!row)
        throw new ApiError(404, 'tool_not_found', `The server has no tool "${toolName}"`, { tool: toolName });
      await tx.query(sql.unsafe`
        UPDATE generated_servers SET updated_at = now(),
          tool_count = (SELECT count(*) FROM generated_server_tools WHERE server_id = ${id} AND exposed)
        WHERE id = ${id}`);
      return row;
    });
  } catch (error) {
    if (error instanceof UniqueIntegrityConstraintViolationError)
      throw new ApiError(409, 'tool_name_taken', `Another tool of the server is named "${edit.name}"`, {
        name: edit.name,
      });
    throw error;
  }
}

/**
 * Publishes the draft as the next version: a snapshot of the server and its exposed tools, written with
 * the server's new version in one transaction (the row lock makes two publishes two versions).
 */
export async function publishGeneratedServer(
  db: DatabasePool,
  scope: GeneratedServerScope,
  id: string,
  snapshotOf: (server: GeneratedServerDetailRow, tools: readonly GeneratedToolRow[]) => object,
): Promise<GeneratedServerDetailRow> {
  return db.transaction(async (tx) => {
    const locked = await tx.maybeOne(sql.type(detailRow)`
      SELECT ${DETAIL} FROM generated_servers
      WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND id = ${id}
      FOR UPDATE`);
    if (!locked) throw notFound();
    if (locked.status === 'archived')
      throw new ApiError(409, 'server_archived', 'Unarchive the server before publishing it', { id });
    if (!locked.slug)
      throw new ApiError(409, 'not_publishable', 'This server was not generated from a document', { id });
    const tools = (await listGeneratedTools(tx, id)).filter((tool) => tool.exposed);
    if (tools.length === 0)
      throw new ApiError(409, 'no_exposed_tools', 'Expose at least one tool before publishing', { id });
    const version = (locked.published_version ?? 0) + 1;
    await tx.query(sql.unsafe`
      INSERT INTO generated_server_versions (server_id, version, snapshot)
      VALUES (${id}, ${version}, ${jsonb(snapshotOf(locked, tools))})`);
    return tx.one(sql.type(detailRow)`
      UPDATE generated_servers SET status = 'published', published_version = ${version},
        version = ${String(version)}, published_at = now(), updated_at = now()
      WHERE id = ${id}
      RETURNING ${DETAIL}`);
  });
}

export async function listGeneratedVersions(
  db: CommonQueryMethods,
  scope: GeneratedServerScope,
  id: string,
): Promise<ReadonlyArray<z.infer<typeof versionRow>>> {
  await getGeneratedServer(db, scope, id);
  return db.any(sql.type(versionRow)`
    SELECT version, jsonb_array_length(snapshot->'tools') AS tool_count, published_at
    FROM generated_server_versions WHERE server_id = ${id} ORDER BY version DESC`);
}

/**
 * Retires the server as a provider: its tools leave sessions, search and the providers list, and calls on
 * it answer 404 `server_unknown`, while the server, its versions, its slug and the project's connections
 * to it stay. Archiving an archived server changes nothing.
 */
export async function archiveGeneratedServer(
  db: CommonQueryMethods,
  scope: GeneratedServerScope,
  id: string,
): Promise<GeneratedServerDetailRow> {
  const row = await db.maybeOne(sql.type(detailRow)`
    UPDATE generated_servers SET status = 'archived', updated_at = now()
    WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND id = ${id} AND status <> 'archived'
    RETURNING ${DETAIL}`);
  return row ?? getGeneratedServer(db, scope, id);
}

/**
 * Serves the server again as it was before its archive: its newest published version, or a draft when it
 * was never published. Unarchiving a server that is not archived changes nothing.
 */
export async function unarchiveGeneratedServer(
  db: CommonQueryMethods,
  scope: GeneratedServerScope,
  id: string,
): Promise<GeneratedServerDetailRow> {
  const row = await db.maybeOne(sql.type(detailRow)`
    UPDATE generated_servers SET updated_at = now(),
      status = CASE WHEN published_version IS NULL THEN 'draft' ELSE 'published' END
    WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND id = ${id} AND status = 'archived'
    RETURNING ${DETAIL}`);
  return row ?? getGeneratedServer(db, scope, id);
}
