// Mock provider for `api_key`: one secret in the `x-api-key` header, nothing else.
import { startAuthMock, type AuthMock } from './auth-mock';

export const API_KEY_SANDBOX = { api_key: 'pk_sandbox_pixpsp_valid_0001' };

export function startApiKeyMock(): Promise<AuthMock> {
  return startAuthMock({
    credentials: API_KEY_SANDBOX,
    account: { id: 'acct_pix_001', name: 'Acme Pix Account', extras: { pix_keys: 2 } },
    check: (r) => {
      if (r.headers['x-api-key'] === undefined) return 'Missing x-api-key header';
      return r.headers['x-api-key'] === API_KEY_SANDBOX.api_key ? null : 'The API key provided is not valid';
    },
  });
}
