// The rules an authorization request must meet before the consent page is shown (and again when the
// form comes back): a registered client, a redirect URI it registered (exact string match), the code
// response type, a PKCE S256 challenge and known scope names. Failures are shown to the person as a
// page, never sent to the redirect URI, so an unchecked URI can never become an open redirect.
import type { Scope } from '../../contracts/scopes';
import type { OAuthClient } from './clients';
import { OAuthError } from './errors';
import { isS256Challenge } from './pkce';
import { parseScope } from './scope';

export const MAX_STATE_LENGTH = 2048;

export interface AuthorizationParams {
  client_id?: string;
  redirect_uri?: string;
  response_type?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  scope?: string;
  state?: string;
}

export interface AuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  codeChallenge: string;
  /** Null when the request named no scope: the grant then takes what the pasted key holds. */
  scopes: Scope[] | null;
  state: string | null;
}

export function checkAuthorizationRequest(
  client: OAuthClient | null,
  params: AuthorizationParams,
): AuthorizationRequest {
  if (!params.client_id) throw new OAuthError('invalid_request', 'The client_id parameter is missing');
  if (!client) throw new OAuthError('invalid_client', 'No client is registered with this client_id');
  if (!params.redirect_uri) throw new OAuthError('invalid_request', 'The redirect_uri parameter is missing');
  if (!client.redirect_uris.includes(params.redirect_uri)) {
    throw new OAuthError(
      'invalid_request',
      'The redirect_uri is not one this client registered (it must match exactly)',
    );
  }
  if (params.response_type !== 'code')
    throw new OAuthError('unsupported_response_type', 'response_type must be "code"');
  if (params.code_challenge_method !== 'S256') {
    throw new OAuthError('invalid_request', 'PKCE is required: code_challenge_method must be "S256"');
  }
  if (!params.code_challenge || !isS256Challenge(params.code_challenge)) {
    throw new OAuthError(
      'invalid_request',
      'code_challenge must be the base64url SHA-256 of the code verifier (43 characters)',
    );
  }
  const state = params.state === undefined || params.state === '' ? null : params.state;
  if (state !== null && state.length > MAX_STATE_LENGTH)
    throw new OAuthError('invalid_request', `state must be at most ${MAX_STATE_LENGTH} characters`);
  return {
    client,
    redirectUri: params.redirect_uri,
    codeChallenge: params.code_challenge,
    scopes: parseScope(params.scope),
    state,
  };
}
