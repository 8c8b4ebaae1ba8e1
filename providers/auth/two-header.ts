// `two_header`: two credential headers (a client id and a secret), and no bearer at all.
import { headerFieldOf, type Injector } from './request';

export const injectTwoHeader: Injector = (request, credential, server) => {
  const headers = Object.fromEntries(
    Object.entries(request.headers).filter(([name]) => name.toLowerCase() !== 'authorization'),
  );
  return {
    ...request,
    headers: {
      ...headers,
      [headerFieldOf(server, 'client_id')]: credential.client_id,
      [headerFieldOf(server, 'client_secret')]: credential.client_secret,
    },
  };
};
