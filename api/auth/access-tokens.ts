// OAuth access tokens presented as bearer credentials: a live token becomes a Principal of kind
// `oauth` acting for its grant's project, with the API key the grant was made with and the granted
// scopes (so requireScope enforces them like a restricted key's).
import { findLiveAccessToken } from '../../domain/oauth/access-tokens';
import type { AppDeps } from '../deps';
import type { Principal } from '../principal';

export async function resolveAccessToken(deps: AppDeps, token: string): Promise<Principal | null> {
  const credential = await findLiveAccessToken(deps.db, token);
  if (!credential) return null;
  return {
    kind: 'oauth',
    orgId: credential.orgId,
    projectId: credential.projectId,
    environment: credential.environment,
    keyId: credential.apiKeyId,
    scopes: credential.scopes,
    userId: null,
  };
}
