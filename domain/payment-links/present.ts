// The public shape of a payment link: the spec's fields, with `pay_url` built from the slug.
import type { LinkRow } from './links';

export const payUrlOf = (origin: string, slug: string): string => `${origin}/pay/${encodeURIComponent(slug)}`;

export function presentLink(row: LinkRow, origin: string): Record<string, unknown> {
  return {
    id: row.id,
    project_id: row.project_id,
    slug: row.slug,
    title: row.title,
    description: row.description,
    pay_url: payUrlOf(origin, row.slug),
    accepts: row.accepts,
    environment: row.environment,
    one_time: row.one_time,
    status: row.status,
    use_count: row.use_count,
    max_uses: row.max_uses,
    expires_at: row.expires_at,
    redirect_url: row.redirect_url,
    active: row.active,
    created_at: row.created_at,
    metadata: row.metadata,
  };
}
