// Grant families: one row per approved consent, the tokens issued under it, and its revocation.
// Every write names the grant's organization and project; events go to the outbox in the same transaction.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import { recordEvent } from '../events/record';
import { sortableId } from '../ids';
import type { Environment } from '../tenancy/api-key-format';
import { hashCredential, LIFETIME_SECONDS, mintCredential } from './credentials';
import { formatScope } from './scope';

export interface GrantRef {
  id: string;
  org_id: string;
  project_id: string;
  environment: Environment;
  client_id: string;
  api_key_id: string;
}

export type RevocationReason = 'authorization_code_reuse' | 'refresh_token_reuse';

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

export async function createGrant(
  tx: CommonQueryMethods,
  input: {
    orgId: string;
    projectId: string;
    environment: Environment;
    clientId: string;
    clientName: string | null;
    apiKeyId: string;
    scopes: string[];
  },
): Promise<GrantRef> {
  const id = sortableId('ogr');
  await tx.query(sql.unsafe`
    INSERT INTO oauth_grants (id, org_id, project_id, environment, client_id, api_key_id, scopes)
    VALUES (${id}, ${input.orgId}, ${input.projectId}, ${input.environment}, ${input.clientId}, ${input.apiKeyId}, ${sql.array(input.scopes, 'text')})`);
  await recordEvent(
    tx,
    { orgId: input.orgId, projectId: input.projectId, environment: input.environment },
    'oauth_grant.created',
    {
      grant_id: id,
      client_id: input.clientId,
      client_name: input.clientName,
      api_key_id: input.apiKeyId,
      scope: formatScope(input.scopes),
    },
  );
  return {
    id,
    org_id: input.orgId,
    project_id: input.projectId,
    environment: input.environment,
    client_id: input.clientId,
    api_key_id: input.apiKeyId,
  };
}

/** Ends every token of the family at once. Revoking an already revoked grant changes nothing and records nothing. */
export async function revokeGrant(
  tx: CommonQueryMethods,
  grant: GrantRef,
  reason: RevocationReason,
): Promise<void> {
  const revoked = await tx.maybeOne(sql.type(z.object({ id: z.string() }))`
    UPDATE oauth_grants SET revoked_at = now(), revoked_reason = ${reason}
    WHERE org_id = ${grant.org_id} AND project_id = ${grant.project_id} AND id = ${grant.id} AND revoked_at IS NULL
    RETURNING id`);
  if (!revoked) return;
  await recordEvent(
    tx,
    { orgId: grant.org_id, projectId: grant.project_id, environment: grant.environment },
    'oauth_grant.revoked',
    {
      grant_id: grant.id,
      client_id: grant.client_id,
      api_key_id: grant.api_key_id,
      reason,
    },
  );
}

/** Issues a fresh access token (1 hour) and refresh token (30 days) under a grant. */
export async function issueTokens(
  tx: CommonQueryMethods,
  grant: GrantRef,
  scopes: readonly string[],
): Promise<TokenResponse> {
  const accessToken = mintCredential('access_token');
  const refreshToken = mintCredential('refresh_token');
  await tx.query(sql.unsafe`
    INSERT INTO oauth_access_tokens (token_hash, org_id, project_id, grant_id, scopes, expires_at)
    VALUES (${hashCredential(accessToken)}, ${grant.org_id}, ${grant.project_id}, ${grant.id}, ${sql.array([...scopes], 'text')},
            now() + ${LIFETIME_SECONDS.access_token}::int * interval '1 second')`);
  await tx.query(sql.unsafe`
    INSERT INTO oauth_refresh_tokens (token_hash, org_id, project_id, grant_id, expires_at)
    VALUES (${hashCredential(refreshToken)}, ${grant.org_id}, ${grant.project_id}, ${grant.id},
            now() + ${LIFETIME_SECONDS.refresh_token}::int * interval '1 second')`);
  return {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: LIFETIME_SECONDS.access_token,
    refresh_token: refreshToken,
    scope: formatScope(scopes),
  };
}

/** Columns every stored credential of a grant (code or refresh token) is read with. */
export const storedGrantFields = {
  grant_id: z.string(),
  org_id: z.string(),
  project_id: z.string(),
  environment: z.enum(['live', 'test']),
  client_id: z.string(),
  api_key_id: z.string(),
  scopes: z.array(z.string()),
  expires_at: z.string(),
  grant_revoked: z.boolean(),
  key_revoked: z.boolean(),
  now: z.string(),
};
