// Which server a slug names for one project: a catalog server or the project's own published generated
// server, another project's generated server (invisible: 404), or nothing (`server_unknown`).
import { ApiError } from '../errors';
import type { CommonQueryMethods } from '../../runtime/database';
import { generatedServerOf, publishedGenerated } from '../generated-servers/provider-lookup';
import { catalogServer, type CatalogServer } from './catalog';

export type ResolvedServer =
  { kind: 'catalog'; server: CatalogServer } | { kind: 'foreign_generated' } | { kind: 'unknown' };

export async function resolveServer(
  db: CommonQueryMethods,
  tenant: { orgId: string; projectId: string },
  slug: string,
): Promise<ResolvedServer> {
  const server = catalogServer(slug);
  if (server) return { kind: 'catalog', server };
  const generated = await generatedServerOf(db, slug);
  if (!generated) return { kind: 'unknown' };
  if (generated.orgId !== tenant.orgId || generated.projectId !== tenant.projectId)
    return { kind: 'foreign_generated' };
  // The project's own: a provider once published; a draft is not one yet.
  const published = (await publishedGenerated(db, [slug])).get(slug);
  return published ? { kind: 'catalog', server: published.server } : { kind: 'unknown' };
}

export const serverUnknown = (slug: string): ApiError =>
  new ApiError(404, 'server_unknown', `No server "${slug}" in the catalog`, { server_id: slug });

/** The catalog server a slug names, or the 404 every catalog route answers (another project's generated server included). */
export async function requireServer(
  db: CommonQueryMethods,
  tenant: { orgId: string; projectId: string },
  slug: string,
): Promise<CatalogServer> {
  const resolved = await resolveServer(db, tenant, slug);
  if (resolved.kind !== 'catalog') throw serverUnknown(slug);
  return resolved.server;
}

/** For other areas (webhook triggers' `server_id`): is this slug a catalog server or a generated one? */
export async function catalogServerExists(db: CommonQueryMethods, slug: string): Promise<boolean> {
  return catalogServer(slug) !== undefined || (await generatedServerOf(db, slug)) !== null;
}
