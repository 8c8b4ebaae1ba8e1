// `cdp`: platform API keys of the x402 facilitator: per request an ES256 token with the key name as
// `kid` and `sub`, issuer "cdp", a random nonce, two minutes of life and `uri` = "METHOD host/path".
import { randomBytes } from 'node:crypto';
import { signEs256 } from './es256';
import { withHeaders, type Injector } from './request';

export const injectCdp: Injector = (request, credential, _server, now = new Date()) => {
  const nbf = Math.floor(now.getTime() / 1000);
  const token = signEs256(
    { kid: credential.key_name, nonce: randomBytes(16).toString('hex') },
    {
      iss: 'cdp',
      sub: credential.key_name,
      nbf,
      exp: nbf + 120,
      uri: `${request.method.toUpperCase()} ${request.url.host}${request.url.pathname}`,
    },
    credential.private_key,
  );
  return withHeaders(request, { authorization: `Bearer ${token}` });
};
