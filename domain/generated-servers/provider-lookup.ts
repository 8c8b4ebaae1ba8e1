// Generated servers as providers, by slug: whose a slug is (another project's answers 404 on every
// providers route), and the newest published version as a catalog-shaped server with its session tools.
// An archived server serves as nothing: it is no provider, and its slug is only recognised as retired.
// Versions never change once written, so each is built once per process and kept (a bounded cache):
// the tool schemas stay the same objects, which the validator and the MCP listing cache by identity.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import type { CatalogServer } from '../providers/catalog';
import type { ToolSpec } from '../tools/tool-spec';
import { providerOf, publishedSnapshot, type GeneratedOwner } from './snapshot';

export interface GeneratedEntry {
  server: CatalogServer;
  tools: ToolSpec[];
}

const slugRow = z.object({
  id: z.string(),
  slug: z.string(),
  org_id: z.string(),
  project_id: z.string(),
  published_version: z.number().nullable(),
  archived: z.boolean(),
});
const versionRow = z.object({ server_id: z.string(), version: z.number(), snapshot: z.record(z.unknown()) });

const CACHE_LIMIT = 1000;
const built = new Map<string, GeneratedEntry>();

function entryOf(snapshot: unknown, owner: GeneratedOwner): GeneratedEntry {
  const server = providerOf(publishedSnapshot.parse(snapshot), owner);
  const tools = server.tools.map((tool): ToolSpec => ({
    name: `${server.id}.${tool.name}`,
    serverId: server.id,
    description: tool.description,
    movesMoney: false,
    attempt: false,
    inputSchema: tool.input_schema,
    dispatch: { kind: 'provider', server, tool },
  }));
  return { server, tools };
}

async function rowsBySlug(db: CommonQueryMethods, slugs: readonly string[]) {
  return db.any(sql.type(slugRow)`
    SELECT id, slug, org_id, project_id, published_version, status = 'archived' AS archived FROM generated_servers
    WHERE slug = ANY(${sql.array([...slugs], 'text')})`);
}

/** The serving (published, not archived) generated servers among these slugs, whoever owns them (callers check the owner). */
export async function publishedGenerated(
  db: CommonQueryMethods,
  slugs: readonly string[],
): Promise<Map<string, GeneratedEntry & { owner: GeneratedOwner }>> {
  const out = new Map<string, GeneratedEntry & { owner: GeneratedOwner }>();
  if (slugs.length === 0) return out;
  const rows = (await rowsBySlug(db, slugs)).filter((row) => row.published_version !== null && !row.archived);
  const missing = rows.filter((row) => !built.has(`${row.id}@${row.published_version}`));
  if (missing.length > 0) {
    const versions = await db.any(sql.type(versionRow)`
      SELECT server_id, version, snapshot FROM generated_server_versions
      WHERE (server_id, version) IN (SELECT * FROM unnest(
        ${sql.array(
          missing.map((row) => row.id),
          'text',
        )}::text[], ${sql.array(
          missing.map((row) => row.published_version!),
          'int4',
        )}::int4[]))`);
    for (const version of versions) {
      const row = missing.find((r) => r.id === version.server_id)!;
      if (built.size >= CACHE_LIMIT) built.delete(built.keys().next().value!);
      built.set(
        `${row.id}@${version.version}`,
        entryOf(version.snapshot, {
          serverId: row.id,
          version: version.version,
          orgId: row.org_id,
          projectId: row.project_id,
        }),
      );
    }
  }
  for (const row of rows) {
    const entry = built.get(`${row.id}@${row.published_version}`);
    if (entry)
      out.set(row.slug, {
        ...entry,
        owner: {
          serverId: row.id,
          version: row.published_version!,
          orgId: row.org_id,
          projectId: row.project_id,
        },
      });
  }
  return out;
}

/** A generated server's owner by slug, published or not; null when no generated server has the slug. */
export async function generatedServerOf(
  db: CommonQueryMethods,
  slug: string,
): Promise<{ orgId: string; projectId: string } | null> {
  const [row] = await rowsBySlug(db, [slug]);
  return row ? { orgId: row.org_id, projectId: row.project_id } : null;
}

/** The project's own serving generated servers, newest first: what its sessions can open and it can find. */
export async function projectGenerated(
  db: CommonQueryMethods,
  tenant: { orgId: string; projectId: string },
): Promise<GeneratedEntry[]> {
  const slugs = await db.anyFirst(sql.type(z.object({ slug: z.string() }))`
    SELECT slug FROM generated_servers
    WHERE org_id = ${tenant.orgId} AND project_id = ${tenant.projectId} AND published_version IS NOT NULL
      AND status <> 'archived'
    ORDER BY created_at DESC, id DESC`);
  const found = await publishedGenerated(db, slugs);
  return slugs.flatMap((slug) => {
    const entry = found.get(slug);
    return entry ? [entry] : [];
  });
}

/** The tenant's own published generated provider by slug; undefined for anything else. */
export async function ownGeneratedProvider(
  db: CommonQueryMethods,
  tenant: { orgId: string; projectId: string },
  slug: string,
): Promise<CatalogServer | undefined> {
  const entry = (await publishedGenerated(db, [slug])).get(slug);
  return entry && entry.owner.orgId === tenant.orgId && entry.owner.projectId === tenant.projectId
    ? entry.server
    : undefined;
}

/**
 * Whether the slug names one of the tenant's own archived generated servers: a session that listed its
 * tools, or a raw request to it, is answered 404 `server_unknown` rather than as a tool it never had.
 */
export async function ownArchivedGenerated(
  db: CommonQueryMethods,
  tenant: { orgId: string; projectId: string },
  slug: string,
): Promise<boolean> {
  const [row] = await rowsBySlug(db, [slug]);
  return Boolean(row?.archived && row.org_id === tenant.orgId && row.project_id === tenant.projectId);
}
