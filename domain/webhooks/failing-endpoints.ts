// Webhook endpoints the gateway stopped sending to because they kept failing (status `error`), across
// organizations (or one). Read-only; the signing secret is never read here.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';

const endpointRow = z.object({
  id: z.string(),
  org_id: z.string(),
  project_id: z.string(),
  name: z.string(),
  event: z.string(),
  webhook_url: z.string(),
  status_reason: z.string().nullable(),
  consecutive_dead: z.number(),
  updated_at: z.string(),
});
export type FailingEndpoint = z.infer<typeof endpointRow>;

export async function listFailingEndpoints(
  db: CommonQueryMethods,
  filter: { orgId?: string; limit: number },
): Promise<FailingEndpoint[]> {
  const org = filter.orgId ? sql.fragment`AND org_id = ${filter.orgId}` : sql.fragment``;
  const rows = await db.any(sql.type(endpointRow)`
    SELECT id, org_id, project_id, name, event, webhook_url, status_reason, consecutive_dead, updated_at
    FROM webhook_endpoints WHERE status = 'error' ${org}
    ORDER BY updated_at, id
    LIMIT ${filter.limit}`);
  return [...rows];
}
