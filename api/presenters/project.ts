// The public shape of a project: settings travel through their own routes.
import type { ProjectRow } from '../../domain/tenancy/projects';

export function presentProject(row: ProjectRow): Record<string, unknown> {
  return {
    id: row.id,
    org_id: row.org_id,
    name: row.name,
    slug: row.slug,
    is_default: row.is_default,
    environment: row.environment,
    created_at: row.created_at,
  };
}
