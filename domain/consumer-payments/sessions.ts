// The session check a spend makes: session_id must name a session of the caller's project.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import { ApiError } from '../errors';

export async function requireSession(
  db: CommonQueryMethods,
  scope: { orgId: string; projectId: string },
  sessionId: string,
): Promise<{ status: string }> {
  const row = await db.maybeOne(sql.type(z.object({ status: z.string() }))`
    SELECT status FROM sessions WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND id = ${sessionId}`);
  if (!row)
    throw new ApiError(422, 'session_not_found', 'session_id names no session of this project', {
      session_id: sessionId,
    });
  return row;
}
