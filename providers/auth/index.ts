// The nine credential injections by auth type: every upstream call goes through `injectCredential`.
import type { AuthType } from '../../contracts/provider-auth-types';
import type { CatalogServer } from '../../domain/providers/catalog';
import { injectApiKey } from './api-key';
import { injectCdp } from './cdp';
import { injectCert } from './cert';
import { injectHmacSigned } from './hmac-signed';
import { injectJwtEcdsa } from './jwt-ecdsa';
import { injectNone } from './none';
import { injectOAuth } from './oauth';
import { injectPathSecret } from './path-secret';
import type { Credential, Injector, OutboundRequest } from './request';
import { injectTwoHeader } from './two-header';

export type { Credential, OutboundRequest } from './request';

export const INJECTORS: Record<AuthType, Injector> = {
  api_key: injectApiKey,
  path_secret: injectPathSecret,
  oauth: injectOAuth,
  cert: injectCert,
  hmac_signed: injectHmacSigned,
  jwt_ecdsa: injectJwtEcdsa,
  two_header: injectTwoHeader,
  cdp: injectCdp,
  none: injectNone,
};

export function injectCredential(
  request: OutboundRequest,
  credential: Credential,
  server: CatalogServer,
  now?: Date,
): OutboundRequest {
  return INJECTORS[server.auth_type](request, credential, server, now);
}
