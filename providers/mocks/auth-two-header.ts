// Mock provider for `two_header`: a client id and a client secret in two headers, and no bearer.
import { startAuthMock, type AuthMock } from './auth-mock';

export const TWO_HEADER_SANDBOX = {
  client_id: 'freight_sandbox_client',
  client_secret: 'freight_sandbox_secret_0001',
};

export function startTwoHeaderMock(): Promise<AuthMock> {
  return startAuthMock({
    credentials: TWO_HEADER_SANDBOX,
    account: { id: 'shipper_42', name: 'Acme Shipping' },
    check: (r) => {
      if (r.headers.authorization !== undefined)
        return 'Authorization header not accepted: send x-client-id and x-client-secret';
      if (r.headers['x-client-id'] !== TWO_HEADER_SANDBOX.client_id) return 'Unknown client id';
      return r.headers['x-client-secret'] === TWO_HEADER_SANDBOX.client_secret
        ? null
        : 'Client secret does not match';
    },
  });
}
