// Mock provider for `none`: a public API that must receive no credential at all.
import { startAuthMock, type AuthMock } from './auth-mock';

const CREDENTIAL_HEADERS = [
  'authorization',
  'x-api-key',
  'x-client-id',
  'x-client-secret',
  'x-signature',
  'cookie',
];

export function startNoneMock(): Promise<AuthMock> {
  return startAuthMock({
    credentials: {},
    account: { id: 'public', name: 'Postal Codes (public)' },
    check: (r) => {
      const sent = CREDENTIAL_HEADERS.filter((h) => r.headers[h] !== undefined);
      return sent.length ? `This API takes no credentials; unexpected ${sent.join(', ')}` : null;
    },
  });
}
