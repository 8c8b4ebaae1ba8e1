// The one question receipts ask of the consumers area: is this consumer in the caller's project?
// Another tenant's consumer is 404 not_found, like an unknown one.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import { notFound } from '../errors';

export async function requireConsumer(
  db: CommonQueryMethods,
  scope: { orgId: string; projectId: string },
  consumerId: string,
): Promise<void> {
  const found = await db.maybeOneFirst(sql.type(z.object({ id: z.string() }))`
    SELECT id FROM consumers WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND id = ${consumerId}`);
  if (!found) throw notFound('Consumer');
}
