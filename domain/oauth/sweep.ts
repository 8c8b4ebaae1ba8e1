// Deletes OAuth rows that can no longer matter, in bounded batches. Retention keeps what reuse
// detection needs: a spent code for 30 days past its expiry (a replay still revokes its family), a
// rotated refresh token until it would have expired. Grant events stay in the outbox as the audit trail.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';

export const SWEEP_BATCH = 1_000;

export interface SweepCounts {
  grants: number;
  authorization_codes: number;
  access_tokens: number;
  refresh_tokens: number;
}

const deleted = z.object({ n: z.number() });

/** One batch of each kind; a total under `batch` per kind means the sweep has caught up. */
export async function sweepOAuthBatch(db: CommonQueryMethods, batch = SWEEP_BATCH): Promise<SweepCounts> {
  // A grant is dead once revoked, or once its key is revoked, or once no refresh token of it can be
  // used any more; 30 days later it goes, with whatever codes and tokens it still has.
  const grants = await db.oneFirst(sql.type(deleted)`
    WITH doomed AS (
      SELECT g.org_id, g.project_id, g.id FROM oauth_grants g
      JOIN api_keys k ON k.id = g.api_key_id
      WHERE g.created_at < now() - interval '30 days'
        AND (g.revoked_at < now() - interval '30 days'
             OR k.revoked_at < now() - interval '30 days'
             OR NOT EXISTS (SELECT 1 FROM oauth_refresh_tokens r
                            WHERE r.org_id = g.org_id AND r.project_id = g.project_id AND r.grant_id = g.id
                              AND r.expires_at > now() - interval '30 days'))
      LIMIT ${batch}
    ), gone AS (
      DELETE FROM oauth_grants g USING doomed d
      WHERE g.org_id = d.org_id AND g.project_id = d.project_id AND g.id = d.id RETURNING 1
    )
    SELECT count(*)::int AS n FROM gone`);
  const authorizationCodes = await db.oneFirst(sql.type(deleted)`
    WITH gone AS (
      DELETE FROM oauth_authorization_codes WHERE code_hash IN (
        SELECT code_hash FROM oauth_authorization_codes WHERE expires_at < now() - interval '30 days' LIMIT ${batch})
      RETURNING 1)
    SELECT count(*)::int AS n FROM gone`);
  const accessTokens = await db.oneFirst(sql.type(deleted)`
    WITH gone AS (
      DELETE FROM oauth_access_tokens WHERE token_hash IN (
        SELECT token_hash FROM oauth_access_tokens WHERE expires_at < now() - interval '1 day' LIMIT ${batch})
      RETURNING 1)
    SELECT count(*)::int AS n FROM gone`);
  const refreshTokens = await db.oneFirst(sql.type(deleted)`
    WITH gone AS (
      DELETE FROM oauth_refresh_tokens WHERE token_hash IN (
        SELECT token_hash FROM oauth_refresh_tokens WHERE expires_at < now() - interval '1 day' LIMIT ${batch})
      RETURNING 1)
    SELECT count(*)::int AS n FROM gone`);
  return {
    grants,
    authorization_codes: authorizationCodes,
    access_tokens: accessTokens,
    refresh_tokens: refreshTokens,
  };
}
