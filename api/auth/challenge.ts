// The WWW-Authenticate challenge on 401s of key-reachable routes: RFC 9728's resource_metadata hint
// lets an OAuth client discover where to get a token, RFC 6750's invalid_token marks a presented
// credential that was refused (as opposed to none at all), and RFC 6750's scope names what the route
// needs, so a client asks for that alone instead of every scope the metadata lists.
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
  scope?: string,
): string {
  const metadata = `${publicOrigin(deps.config, ctx)}/.well-known/oauth-protected-resource`.replace(
    /["\\]/g,
    '',
  );
  const scoped = scope === undefined ? '' : `, scope="${scope}"`;
  return `Bearer resource_metadata="${metadata}"${scoped}${credentialPresented ? ', error="invalid_token"' : ''}`;
}
