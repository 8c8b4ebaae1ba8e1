// Mock provider for `api_key`: one secret in the `x-api-key` header, nothing else. Its sandbox also
// has a sign-up API (sandbox-signup.ts) whose issued keys the API accepts beside the published one.
import { startAuthMock, type AuthMock } from './auth-mock';
import { sandboxSignups, type SandboxSignups } from './sandbox-signup';

export const API_KEY_SANDBOX = { api_key: 'pk_sandbox_pixpsp_valid_0001' };

export interface ApiKeyMock extends AuthMock {
  signups: SandboxSignups;
}

export async function startApiKeyMock(): Promise<ApiKeyMock> {
  const signups = sandboxSignups();
  const mock = await startAuthMock({
    credentials: API_KEY_SANDBOX,
    account: { id: 'acct_pix_001', name: 'Acme Pix Account', extras: { pix_keys: 2 } },
    open: signups.handle,
    check: (r) => {
      const key = r.headers['x-api-key'];
      if (key === undefined) return 'Missing x-api-key header';
      return key === API_KEY_SANDBOX.api_key || (typeof key === 'string' && signups.accepts(key))
        ? null
        : 'The API key provided is not valid';
    },
  });
  return { ...mock, signups };
}
