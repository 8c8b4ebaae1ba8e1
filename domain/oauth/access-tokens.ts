// Looks up a presented access token: unexpired, its grant not revoked, the API key the grant was made
// with still live and of the grant's environment (copied from the project, whose environment never
// changes). One indexed join per request, so a revocation of the grant or the key takes effect on the
// very next call without any cache to invalidate.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import { hashCredential, isCredentialOf } from './credentials';
import { effectiveScopes } from './scope';

const liveToken = z.object({
  org_id: z.string(),
  project_id: z.string(),
  environment: z.enum(['live', 'test']),
  api_key_id: z.string(),
  token_scopes: z.array(z.string()),
  key_scopes: z.array(z.string()),
});

export interface AccessTokenCredential {
  orgId: string;
  projectId: string;
  environment: 'live' | 'test';
  apiKeyId: string;
  scopes: string[];
}

export async function findLiveAccessToken(
  db: CommonQueryMethods,
  token: string,
): Promise<AccessTokenCredential | null> {
  if (!isCredentialOf('access_token', token)) return null;
  const row = await db.maybeOne(sql.type(liveToken)`
    SELECT t.org_id, t.project_id, g.environment, g.api_key_id, t.scopes AS token_scopes, k.scopes AS key_scopes
    FROM oauth_access_tokens t
    JOIN oauth_grants g ON g.org_id = t.org_id AND g.project_id = t.project_id AND g.id = t.grant_id AND g.revoked_at IS NULL
    JOIN api_keys k ON k.id = g.api_key_id AND k.org_id = t.org_id AND k.project_id = t.project_id AND k.revoked_at IS NULL
    WHERE t.token_hash = ${hashCredential(token)} AND t.expires_at > now() AND k.environment = g.environment`);
  if (!row) return null;
  return {
    orgId: row.org_id,
    projectId: row.project_id,
    environment: row.environment,
    apiKeyId: row.api_key_id,
    // Keys cannot be narrowed today; should that change, a token never outgrows its key.
    scopes: effectiveScopes(row.token_scopes, row.key_scopes),
  };
}
