// Exchanges an authorization code for tokens. A code is redeemable once, within 60 seconds, by the
// client and redirect URI it was issued to, with the PKCE verifier of its challenge. The first attempt
// spends the code whatever its outcome; any later attempt is treated as theft and revokes the grant,
// which ends every token already issued from the code.
import { sql } from 'slonik';
import { z } from 'zod';
import type { DatabasePool } from '../../runtime/database';
import type { AuthorizationCodeGrant } from './token-request';
import { hashCredential, isCredentialOf } from './credentials';
import { OAuthError } from './errors';
import { issueTokens, revokeGrant, storedGrantFields, type GrantRef, type TokenResponse } from './grants';
import { verifyS256 } from './pkce';

const storedCode = z.object({
  ...storedGrantFields,
  redirect_uri: z.string(),
  code_challenge: z.string(),
  redeemed_at: z.string().nullable(),
});
export type StoredCode = z.infer<typeof storedCode>;

export type RedemptionVerdict = { kind: 'issue' } | { kind: 'reuse' } | { kind: 'refuse'; reason: string };

/** The pure rule, judged at `stored.now` (the database clock, so every API process agrees). */
export function judgeRedemption(
  stored: Omit<StoredCode, 'scopes' | 'org_id' | 'project_id' | 'environment' | 'api_key_id' | 'grant_id'>,
  request: Pick<AuthorizationCodeGrant, 'clientId' | 'redirectUri' | 'codeVerifier'>,
): RedemptionVerdict {
  if (stored.redeemed_at !== null) return { kind: 'reuse' };
  if (stored.client_id !== request.clientId)
    return { kind: 'refuse', reason: 'The code was issued to another client' };
  if (stored.redirect_uri !== request.redirectUri)
    return { kind: 'refuse', reason: 'The redirect_uri differs from the one the code was issued for' };
  if (!verifyS256(request.codeVerifier, stored.code_challenge))
    return {
      kind: 'refuse',
      reason: 'PKCE verification failed: the code_verifier does not match the code_challenge',
    };
  if (Date.parse(stored.now) >= Date.parse(stored.expires_at))
    return { kind: 'refuse', reason: 'The code has expired' };
  if (stored.grant_revoked || stored.key_revoked)
    return { kind: 'refuse', reason: 'The grant behind this code has been revoked' };
  return { kind: 'issue' };
}

type Outcome = { kind: 'issued'; tokens: TokenResponse } | { kind: 'refused'; reason: string };

export async function redeemAuthorizationCode(
  db: DatabasePool,
  request: AuthorizationCodeGrant,
): Promise<TokenResponse> {
  if (!isCredentialOf('authorization_code', request.code))
    throw new OAuthError('invalid_grant', 'The code is invalid');
  const codeHash = hashCredential(request.code);
  const outcome = await db.transaction(async (tx): Promise<Outcome> => {
    // FOR UPDATE serializes concurrent redemptions of one code: the second sees it spent.
    const stored = await tx.maybeOne(sql.type(storedCode)`
      SELECT c.grant_id, c.org_id, c.project_id, g.environment, c.client_id, g.api_key_id, c.redirect_uri, c.code_challenge,
             g.scopes, c.expires_at, c.redeemed_at, g.revoked_at IS NOT NULL AS grant_revoked,
             k.revoked_at IS NOT NULL AS key_revoked, now() AS now
      FROM oauth_authorization_codes c
      JOIN oauth_grants g ON g.org_id = c.org_id AND g.project_id = c.project_id AND g.id = c.grant_id
      JOIN api_keys k ON k.id = g.api_key_id
      WHERE c.code_hash = ${codeHash}
      FOR UPDATE OF c`);
    if (!stored) return { kind: 'refused', reason: 'The code is invalid' };
    const grant: GrantRef = {
      id: stored.grant_id,
      org_id: stored.org_id,
      project_id: stored.project_id,
      environment: stored.environment,
      client_id: stored.client_id,
      api_key_id: stored.api_key_id,
    };
    const verdict = judgeRedemption(stored, request);
    if (verdict.kind === 'reuse') {
      await revokeGrant(tx, grant, 'authorization_code_reuse');
      return { kind: 'refused', reason: 'The code has already been used; tokens issued from it are revoked' };
    }
    await tx.query(sql.unsafe`
      UPDATE oauth_authorization_codes SET redeemed_at = now()
      WHERE org_id = ${stored.org_id} AND project_id = ${stored.project_id} AND code_hash = ${codeHash}`);
    if (verdict.kind === 'refuse') return { kind: 'refused', reason: verdict.reason };
    return { kind: 'issued', tokens: await issueTokens(tx, grant, stored.scopes) };
  });
  // Thrown after commit: the spent code and any revocation must stand even though the request fails.
  if (outcome.kind === 'refused') throw new OAuthError('invalid_grant', outcome.reason);
  return outcome.tokens;
}
