// `hmac_signed`: per request, hex HMAC-SHA256 over `timestamp\nMETHOD\npath?query\nbody` under the
// stored secret, sent with the access key id and the timestamp (unix seconds).
import { createHmac } from 'node:crypto';
import { headerFieldOf, pathAndQuery, withHeaders, type Injector } from './request';

export const injectHmacSigned: Injector = (request, credential, server, now = new Date()) => {
  const timestamp = String(Math.floor(now.getTime() / 1000));
  const signature = createHmac('sha256', credential.secret)
    .update(`${timestamp}\n${request.method.toUpperCase()}\n${pathAndQuery(request.url)}\n`)
    .update(request.body)
    .digest('hex');
  return withHeaders(request, {
    [headerFieldOf(server, 'key_id')]: credential.key_id,
    'x-timestamp': timestamp,
    'x-signature': signature,
  });
};
