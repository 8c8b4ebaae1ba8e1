// Generated tool servers of one organization and project: the listing behind GET /v1/generate/servers.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import { prefixedId } from '../ids';

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

const COLUMNS = sql.fragment`id, name, version, description, status, tool_count, created_at, updated_at`;

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
