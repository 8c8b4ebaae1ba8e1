// Mock provider for `cert`: an HTTPS server that asks for a client certificate and accepts only one
// issued by its test CA (fixtures/). A connection without one, or with another CA's, is refused.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { startAuthMock, type AuthMock } from './auth-mock';

const fixture = (name: string) => readFileSync(path.join(__dirname, 'fixtures', name), 'utf8');
export const CERT_MOCK_CA = () => fixture('ca.pem');
export const CERT_SANDBOX = () => ({
  certificate: fixture('client.pem'),
  private_key: fixture('client.key'),
});
export const CERT_ROGUE = () => ({ certificate: fixture('rogue.pem'), private_key: fixture('rogue.key') });

export function startCertMock(): Promise<AuthMock> {
  return startAuthMock({
    credentials: CERT_SANDBOX(),
    account: { id: 'corp_12345678000195', name: 'ACME LTDA' },
    tls: {
      cert: fixture('server.pem'),
      key: fixture('server.key'),
      ca: CERT_MOCK_CA(),
      requestCert: true,
      rejectUnauthorized: false,
    },
    check: (r) => {
      const socket = r.socket as TLSSocket;
      if (!socket.getPeerCertificate || !Object.keys(socket.getPeerCertificate()).length)
        return 'Client certificate required';
      return socket.authorized ? null : `Client certificate not trusted: ${socket.authorizationError}`;
    },
  });
}
