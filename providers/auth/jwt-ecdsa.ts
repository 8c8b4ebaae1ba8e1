// `jwt_ecdsa`: a fresh ES256 token per request, naming the key (`kid`) and binding method, path and a
// SHA-256 of the body, valid for one minute.
import { createHash } from 'node:crypto';
import { signEs256 } from './es256';
import { pathAndQuery, withHeaders, type Injector } from './request';

export const injectJwtEcdsa: Injector = (request, credential, _server, now = new Date()) => {
  const iat = Math.floor(now.getTime() / 1000);
  const token = signEs256(
    { kid: credential.key_id },
    {
      iat,
      exp: iat + 60,
      method: request.method.toUpperCase(),
      path: pathAndQuery(request.url),
      body_sha256: createHash('sha256').update(request.body).digest('hex'),
    },
    credential.private_key,
  );
  return withHeaders(request, { authorization: `Bearer ${token}` });
};
