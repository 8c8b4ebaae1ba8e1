// The refresh_token grant with rotation: each refresh token works once and is replaced by a new one
// (valid 30 days from that moment). Presenting a token that was already rotated means two parties hold
// it, so the whole grant family is revoked, as OAuth 2.1 4.3.1 and the Security BCP recommend.
import { sql } from 'slonik';
import { z } from 'zod';
import type { DatabasePool } from '../../runtime/database';
import { hashCredential, isCredentialOf } from './credentials';
import { OAuthError, type OAuthErrorCode } from './errors';
import { issueTokens, revokeGrant, storedGrantFields, type GrantRef, type TokenResponse } from './grants';
import { parseScope } from './scope';
import type { RefreshTokenGrant } from './token-request';

const storedRefresh = z.object({
  ...storedGrantFields,
  rotated_at: z.string().nullable(),
});
export type StoredRefresh = z.infer<typeof storedRefresh>;

export type RefreshVerdict =
  | { kind: 'issue'; scopes: string[] }
  | { kind: 'reuse' }
  | { kind: 'refuse'; code: Extract<OAuthErrorCode, 'invalid_grant' | 'invalid_scope'>; reason: string };

/** The pure rule, judged at `stored.now` (the database clock). A narrower `scope` may be asked for. */
export function judgeRefresh(
  stored: Pick<
    StoredRefresh,
    'client_id' | 'scopes' | 'expires_at' | 'rotated_at' | 'grant_revoked' | 'key_revoked' | 'now'
  >,
  request: Pick<RefreshTokenGrant, 'clientId' | 'scope'>,
): RefreshVerdict {
  if (stored.rotated_at !== null) return { kind: 'reuse' };
  if (stored.grant_revoked || stored.key_revoked)
    return {
      kind: 'refuse',
      code: 'invalid_grant',
      reason: 'The grant behind this refresh token has been revoked',
    };
  if (Date.parse(stored.now) >= Date.parse(stored.expires_at))
    return { kind: 'refuse', code: 'invalid_grant', reason: 'The refresh token has expired' };
  if (request.clientId !== null && request.clientId !== stored.client_id)
    return {
      kind: 'refuse',
      code: 'invalid_grant',
      reason: 'The refresh token was issued to another client',
    };
  if (request.scope === null) return { kind: 'issue', scopes: stored.scopes };
  let asked: string[] | null;
  try {
    asked = parseScope(request.scope);
  } catch (error) {
    if (error instanceof OAuthError)
      return { kind: 'refuse', code: 'invalid_scope', reason: error.description };
    throw error;
  }
  if (asked === null) return { kind: 'issue', scopes: stored.scopes };
  const beyond = asked.filter((scope) => !stored.scopes.includes(scope));
  if (beyond.length > 0)
    return {
      kind: 'refuse',
      code: 'invalid_scope',
      reason: `The grant does not include ${beyond.join(' ')}`,
    };
  return { kind: 'issue', scopes: asked };
}

type Outcome =
  | { kind: 'issued'; tokens: TokenResponse }
  | { kind: 'refused'; code: 'invalid_grant' | 'invalid_scope'; reason: string };

export async function refreshTokens(db: DatabasePool, request: RefreshTokenGrant): Promise<TokenResponse> {
  if (!isCredentialOf('refresh_token', request.refreshToken))
    throw new OAuthError('invalid_grant', 'The refresh token is invalid');
  const tokenHash = hashCredential(request.refreshToken);
  const outcome = await db.transaction(async (tx): Promise<Outcome> => {
    // FOR UPDATE makes rotation atomic: of two concurrent refreshes with one token, the second sees it rotated.
    const stored = await tx.maybeOne(sql.type(storedRefresh)`
      SELECT r.grant_id, r.org_id, r.project_id, g.environment, g.client_id, g.api_key_id, g.scopes, r.expires_at, r.rotated_at,
             g.revoked_at IS NOT NULL AS grant_revoked, k.revoked_at IS NOT NULL AS key_revoked, now() AS now
      FROM oauth_refresh_tokens r
      JOIN oauth_grants g ON g.org_id = r.org_id AND g.project_id = r.project_id AND g.id = r.grant_id
      JOIN api_keys k ON k.id = g.api_key_id
      WHERE r.token_hash = ${tokenHash}
      FOR UPDATE OF r`);
    if (!stored) return { kind: 'refused', code: 'invalid_grant', reason: 'The refresh token is invalid' };
    const grant: GrantRef = {
      id: stored.grant_id,
      org_id: stored.org_id,
      project_id: stored.project_id,
      environment: stored.environment,
      client_id: stored.client_id,
      api_key_id: stored.api_key_id,
    };
    const verdict = judgeRefresh(stored, request);
    if (verdict.kind === 'reuse') {
      await revokeGrant(tx, grant, 'refresh_token_reuse');
      return {
        kind: 'refused',
        code: 'invalid_grant',
        reason: 'The refresh token was already used; every token of this grant is revoked',
      };
    }
    if (verdict.kind === 'refuse') return { kind: 'refused', code: verdict.code, reason: verdict.reason };
    await tx.query(sql.unsafe`
      UPDATE oauth_refresh_tokens SET rotated_at = now()
      WHERE org_id = ${stored.org_id} AND project_id = ${stored.project_id} AND token_hash = ${tokenHash}`);
    return { kind: 'issued', tokens: await issueTokens(tx, grant, verdict.scopes) };
  });
  // Thrown after commit, so a reuse revocation stands.
  if (outcome.kind === 'refused') throw new OAuthError(outcome.code, outcome.reason);
  return outcome.tokens;
}
