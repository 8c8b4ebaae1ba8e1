// `oauth`: the access token of the authorization-code flow as a bearer. Refreshing an expired token is
// domain/providers/oauth-tokens.ts's job, before this runs.
import { withHeaders, type Injector } from './request';

export const injectOAuth: Injector = (request, credential) => {
  if (!credential.access_token) throw new Error('credential lacks an access token');
  return withHeaders(request, { authorization: `Bearer ${credential.access_token}` });
};
