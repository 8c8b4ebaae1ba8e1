// Reads a token request (form or JSON) into one of the two grants, or the OAuth error the client
// should see. Unrecognized parameters are ignored, as RFC 6749 3.2 requires.
import { OAuthError } from './errors';

export interface AuthorizationCodeGrant {
  grantType: 'authorization_code';
  code: string;
  codeVerifier: string;
  redirectUri: string;
  clientId: string;
}

export interface RefreshTokenGrant {
  grantType: 'refresh_token';
  refreshToken: string;
  clientId: string | null;
  scope: string | null;
}

export type TokenRequest = AuthorizationCodeGrant | RefreshTokenGrant;

const FIELDS = [
  'grant_type',
  'code',
  'code_verifier',
  'redirect_uri',
  'client_id',
  'refresh_token',
  'scope',
] as const;
type Field = (typeof FIELDS)[number];

function textFields(body: unknown): Partial<Record<Field, string>> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new OAuthError('invalid_request', 'The request body must be form-encoded or a JSON object');
  const source = body as Record<string, unknown>;
  const out: Partial<Record<Field, string>> = {};
  for (const field of FIELDS) {
    const value = source[field];
    if (value === undefined || value === null || value === '') continue;
    if (typeof value !== 'string') throw new OAuthError('invalid_request', `${field} must be a string`);
    out[field] = value;
  }
  return out;
}

function required(fields: Partial<Record<Field, string>>, name: Field): string {
  const value = fields[name];
  if (value === undefined) throw new OAuthError('invalid_request', `The ${name} parameter is missing`);
  return value;
}

export function parseTokenRequest(body: unknown): TokenRequest {
  const fields = textFields(body);
  const grantType = required(fields, 'grant_type');
  if (grantType === 'authorization_code') {
    return {
      grantType,
      code: required(fields, 'code'),
      codeVerifier: required(fields, 'code_verifier'),
      redirectUri: required(fields, 'redirect_uri'),
      clientId: required(fields, 'client_id'),
    };
  }
  if (grantType === 'refresh_token') {
    // The refresh token is bound to its client; a client_id sent with it must match, and one left out
    // widens nothing.
    return {
      grantType,
      refreshToken: required(fields, 'refresh_token'),
      clientId: fields.client_id ?? null,
      scope: fields.scope ?? null,
    };
  }
  throw new OAuthError(
    'unsupported_grant_type',
    `grant_type "${grantType}" is not supported; use authorization_code or refresh_token`,
  );
}
