// Mock provider for `jwt_ecdsa`: a fresh ES256 token on every request, `kid` naming the key, claims
// binding it to this request (`method`, `path`, `body_sha256`) and living at most two minutes.
import { createHash } from 'node:crypto';
import { startAuthMock, type AuthMock } from './auth-mock';
import { checkEs256, sandboxKeyPair } from './es256-token';

export function startJwtEcdsaMock(): Promise<AuthMock> {
  const pair = sandboxKeyPair();
  const credentials = { key_id: 'sandbox-key-01', private_key: pair.privatePem };
  return startAuthMock({
    credentials,
    account: { id: 'wallet_9', name: 'Acme Treasury', extras: { chain: 'polygon' } },
    check: (r) => {
      const token = checkEs256(r.headers.authorization, pair.publicKey);
      if (typeof token === 'string') return token;
      if (token.header.kid !== credentials.key_id) return 'Unknown key id';
      const now = Date.now() / 1000;
      const { iat, exp, method, path, body_sha256: bodyHash } = token.claims as Record<string, unknown>;
      if (
        typeof iat !== 'number' ||
        typeof exp !== 'number' ||
        exp < now ||
        iat > now + 30 ||
        exp - iat > 120
      )
        return 'Token expired or lives too long';
      if (method !== r.method || path !== r.url) return 'Token was signed for another request';
      return bodyHash === createHash('sha256').update(r.body).digest('hex')
        ? null
        : 'Token was signed for another body';
    },
  });
}
