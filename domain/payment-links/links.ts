// Payment link rows: create, read, list, update and delete, each inside the caller's organization and
// project. A deleted link is hidden and void but kept, with its slug, so its settled payments and
// receipts keep pointing at a row. The shown status is derived here: a passed expiry reads `expired`.
import { sql, UniqueIntegrityConstraintViolationError } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import { ApiError } from '../errors';
import { prefixedId, randomToken } from '../ids';
import { acceptRow, type Accept } from './accepts';

export const linkRow = z.object({
  id: z.string(),
  org_id: z.string(),
  project_id: z.string(),
  slug: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  accepts: z.array(acceptRow),
  environment: z.enum(['live', 'test']),
  one_time: z.boolean(),
  status: z.enum(['active', 'paid', 'expired', 'void']),
  use_count: z.number(),
  max_uses: z.number().nullable(),
  expires_at: z.string().nullable(),
  redirect_url: z.string().nullable(),
  active: z.boolean(),
  metadata: z.record(z.unknown()),
  created_at: z.string(),
});
export type LinkRow = z.infer<typeof linkRow>;

export interface LinkScope {
  orgId: string;
  projectId: string;
}

const COLUMNS = sql.fragment`
  l.id, l.org_id, l.project_id, l.slug, l.title, l.description, l.accepts, l.environment, l.one_time,
  CASE WHEN l.status <> 'active' THEN l.status
       WHEN l.expires_at IS NOT NULL AND l.expires_at <= now() THEN 'expired'
       ELSE 'active' END AS status,
  l.use_count, l.max_uses, l.expires_at, l.redirect_url, l.active, l.metadata, l.created_at`;

export const paymentLinkNotFound = (): ApiError =>
  new ApiError(404, 'payment_link_not_found', 'Payment link not found');
const slugConflict = (slug: string) =>
  new ApiError(409, 'slug_conflict', `The slug "${slug}" is taken`, { slug });

export interface LinkInput {
  slug?: string;
  title: string;
  description: string | null;
  accepts: Accept[];
  environment: 'live' | 'test';
  oneTime: boolean;
  maxUses: number | null;
  expiresAt: string | null;
  redirectUrl: string | null;
  metadata: Record<string, unknown>;
}

// 12 characters over 36 symbols: collisions of generated slugs are retried, never shown.
const generatedSlug = () => randomToken(12, '0123456789abcdefghijklmnopqrstuvwxyz');

export async function createLink(
  db: CommonQueryMethods,
  scope: LinkScope,
  input: LinkInput,
): Promise<LinkRow> {
  for (let tries = 0; ; tries++) {
    const slug = input.slug ?? generatedSlug();
    try {
      return await db.one(sql.type(linkRow)`
        WITH l AS (
          INSERT INTO payment_links (id, org_id, project_id, slug, title, description, accepts, environment, one_time, max_uses, expires_at, redirect_url, metadata)
          VALUES (${prefixedId('pl', 21)}, ${scope.orgId}, ${scope.projectId}, ${slug}, ${input.title}, ${input.description},
                  ${sql.jsonb(input.accepts)}, ${input.environment}, ${input.oneTime},
                  ${input.maxUses}, ${input.expiresAt}, ${input.redirectUrl}, ${sql.jsonb(input.metadata as Parameters<typeof sql.jsonb>[0])})
          RETURNING *)
        SELECT ${COLUMNS} FROM l`);
    } catch (error) {
      if (
        !(error instanceof UniqueIntegrityConstraintViolationError) ||
        error.constraint !== 'payment_links_slug_key'
      )
        throw error;
      if (input.slug !== undefined) throw slugConflict(slug);
      if (tries >= 3) throw error;
    }
  }
}

export async function getLink(db: CommonQueryMethods, scope: LinkScope, id: string): Promise<LinkRow> {
  const row = await db.maybeOne(sql.type(linkRow)`
    SELECT ${COLUMNS} FROM payment_links l
    WHERE l.id = ${id} AND l.org_id = ${scope.orgId} AND l.project_id = ${scope.projectId} AND l.deleted_at IS NULL`);
  if (!row) throw paymentLinkNotFound();
  return row;
}

/** The public pay page's read: any tenant's link, by its global slug. */
export async function findLinkBySlug(db: CommonQueryMethods, slug: string): Promise<LinkRow | null> {
  return db.maybeOne(
    sql.type(linkRow)`SELECT ${COLUMNS} FROM payment_links l WHERE l.slug = ${slug} AND l.deleted_at IS NULL`,
  );
}

export async function listLinks(db: CommonQueryMethods, scope: LinkScope): Promise<readonly LinkRow[]> {
  return db.any(sql.type(linkRow)`
    SELECT ${COLUMNS} FROM payment_links l
    WHERE l.org_id = ${scope.orgId} AND l.project_id = ${scope.projectId} AND l.deleted_at IS NULL
    ORDER BY l.created_at DESC, l.id DESC
    LIMIT 1000`);
}

export interface LinkChanges {
  title?: string;
  description?: string | null;
  active?: boolean;
  expiresAt?: string | null;
  redirectUrl?: string | null;
}

export async function updateLink(
  db: CommonQueryMethods,
  scope: LinkScope,
  id: string,
  changes: LinkChanges,
): Promise<LinkRow> {
  // Absent fields keep their value; a present null clears a nullable one.
  const keep = (present: boolean) => (present ? sql.fragment`false` : sql.fragment`true`);
  const row = await db.maybeOne(sql.type(linkRow)`
    WITH l AS (
      UPDATE payment_links SET
        title = coalesce(${changes.title ?? null}, title),
        description = CASE WHEN ${keep(changes.description !== undefined)} THEN description ELSE ${changes.description ?? null} END,
        active = coalesce(${changes.active ?? null}::boolean, active),
        expires_at = CASE WHEN ${keep(changes.expiresAt !== undefined)} THEN expires_at ELSE ${changes.expiresAt ?? null}::timestamptz END,
        redirect_url = CASE WHEN ${keep(changes.redirectUrl !== undefined)} THEN redirect_url ELSE ${changes.redirectUrl ?? null} END,
        updated_at = now()
      WHERE id = ${id} AND org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND deleted_at IS NULL
      RETURNING *)
    SELECT ${COLUMNS} FROM l`);
  if (!row) throw paymentLinkNotFound();
  return row;
}

export async function deleteLink(db: CommonQueryMethods, scope: LinkScope, id: string): Promise<void> {
  const gone = await db.maybeOne(sql.type(z.object({ id: z.string() }))`
    UPDATE payment_links SET deleted_at = now(), status = 'void', active = false, updated_at = now()
    WHERE id = ${id} AND org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND deleted_at IS NULL
    RETURNING id`);
  if (!gone) throw paymentLinkNotFound();
}
