// Turns an approved consent into a one-time authorization code. The pasted API key is judged as the
// bearer check judges it (live, unrevoked, prefix matching its project's environment), the grant takes
// the requested scopes the key holds (refused when it holds none), and the grant, its code and the
// outbox event commit together.
import { sql } from 'slonik';
import type { DatabasePool } from '../../runtime/database';
import { findActiveKey, type KeyCredential } from '../tenancy/api-keys';
import { hashApiKey, keyEnvironment } from '../tenancy/api-key-format';
import type { AuthorizationRequest } from './authorization-request';
import { hashCredential, LIFETIME_SECONDS, mintCredential } from './credentials';
import { OAuthError } from './errors';
import { createGrant } from './grants';
import { grantScopes } from './scope';

export interface ApprovedAuthorization {
  code: string;
  grantId: string;
  scopes: string[];
}

const KEY_REFUSED =
  'That API key was not accepted: check that it is complete, not revoked, and a key of the project you mean to connect';

/** The live key behind a pasted value, or `access_denied` without saying which check failed. */
export async function resolvePastedKey(
  db: DatabasePool,
  pepper: string,
  pasted: string,
): Promise<KeyCredential> {
  const value = pasted.trim();
  if (value === '') throw new OAuthError('access_denied', 'Paste an API key to approve');
  const claimed = keyEnvironment(value);
  if (!claimed) throw new OAuthError('access_denied', KEY_REFUSED);
  const key = await findActiveKey(db, hashApiKey(value, pepper));
  if (!key || key.key_environment !== claimed || key.project_environment !== claimed)
    throw new OAuthError('access_denied', KEY_REFUSED);
  return key;
}

export async function approveAuthorization(
  db: DatabasePool,
  pepper: string,
  request: AuthorizationRequest,
  pastedKey: string,
): Promise<ApprovedAuthorization> {
  const key = await resolvePastedKey(db, pepper, pastedKey);
  const scopes = grantScopes(request.scopes, key.scopes);
  const code = mintCredential('authorization_code');
  const grant = await db.transaction(async (tx) => {
    const created = await createGrant(tx, {
      orgId: key.org_id,
      projectId: key.project_id,
      environment: key.project_environment,
      clientId: request.client.id,
      clientName: request.client.client_name,
      apiKeyId: key.key_id,
      scopes,
    });
    await tx.query(sql.unsafe`
      INSERT INTO oauth_authorization_codes (code_hash, org_id, project_id, grant_id, client_id, redirect_uri, code_challenge, expires_at)
      VALUES (${hashCredential(code)}, ${key.org_id}, ${key.project_id}, ${created.id}, ${request.client.id}, ${request.redirectUri},
              ${request.codeChallenge}, now() + ${LIFETIME_SECONDS.authorization_code}::int * interval '1 second')`);
    return created;
  });
  return { code, grantId: grant.id, scopes };
}
