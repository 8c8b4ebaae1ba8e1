// Mock provider for `cdp` (the x402 facilitator's platform keys): per request an ES256 token whose
// `kid` and `sub` are the key name, `iss` is "cdp", with a nonce, and `uri` = "METHOD host/path".
import { startAuthMock, type AuthMock } from './auth-mock';
import { checkEs256, sandboxKeyPair } from './es256-token';

export function startCdpMock(): Promise<AuthMock> {
  const pair = sandboxKeyPair();
  const credentials = { key_name: 'organizations/sandbox/apiKeys/key-0001', private_key: pair.privatePem };
  return startAuthMock({
    credentials,
    account: { id: 'facilitator_acme', name: 'Acme Seller', extras: { networks: ['base-sepolia'] } },
    check: (r) => {
      const token = checkEs256(r.headers.authorization, pair.publicKey);
      if (typeof token === 'string') return token;
      const { iss, sub, nbf, exp, uri } = token.claims as Record<string, unknown>;
      if (token.header.kid !== credentials.key_name || sub !== credentials.key_name)
        return 'API key not found';
      if (iss !== 'cdp' || typeof token.header.nonce !== 'string') return 'Token is not a platform key token';
      const now = Date.now() / 1000;
      if (
        typeof nbf !== 'number' ||
        typeof exp !== 'number' ||
        exp < now ||
        nbf > now + 30 ||
        exp - nbf > 120
      )
        return 'Token expired';
      return uri === `${r.method} ${r.headers.host}${r.url.split('?')[0]}`
        ? null
        : 'Token uri does not match the request';
    },
  });
}
