// `api_key`: one secret in the header the catalog names; an `authorization` header carries it as a bearer.
import { headerFieldOf, withHeaders, type Injector } from './request';

export const injectApiKey: Injector = (request, credential, server) => {
  const header = headerFieldOf(server, 'api_key');
  return withHeaders(request, {
    [header]: header === 'authorization' ? `Bearer ${credential.api_key}` : credential.api_key,
  });
};
