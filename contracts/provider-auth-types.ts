// How a provider authenticates: the vocabulary the catalog's entries, connections and their schemas share.
export const AUTH_TYPES = [
  'api_key',
  'path_secret',
  'oauth',
  'cert',
  'none',
  'hmac_signed',
  'jwt_ecdsa',
  'two_header',
  'cdp',
] as const;
export type AuthType = (typeof AUTH_TYPES)[number];
