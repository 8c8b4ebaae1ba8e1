// The WWW-Authenticate challenge on 401s of key-reachable routes: RFC 9728's resource_metadata hint
// lets an OAuth client discover where to get a token, and RFC 6750's invalid_token marks a presented
// credential that was refused (as opposed to none at all).
import type Koa from 'koa';
import type { AppDeps } from '../deps';
import { publicOrigin } from '../public-origin';

/** RFC 6750 §3.1: the credential is fine but lacks the scope; the client may ask for a token that has it. */
export function insufficientScopeChallenge(
  deps: Pick<AppDeps, 'config'>,
  ctx: Koa.Context,
  scope: string,
): string {
  const metadata = `${publicOrigin(deps.config, ctx)}/.well-known/oauth-protected-resource`.replace(
    /["\\]/g,
    '',
  );
  return `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${metadata}"`;
}

export function bearerChallenge(
  deps: Pick<AppDeps, 'config'>,
  ctx: Koa.Context,
  credentialPresented: boolean,
): string {
  const metadata = `${publicOrigin(deps.config, ctx)}/.well-known/oauth-protected-resource`.replace(
    /["\\]/g,
    '',
  );
  return `Bearer resource_metadata="${metadata}"${credentialPresented ? ', error="invalid_token"' : ''}`;
}
