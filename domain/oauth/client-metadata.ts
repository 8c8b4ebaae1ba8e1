// Dynamic client registration rules (RFC 7591) for public clients: redirect URIs checked one by one,
// the name cut to 256 characters, and the fixed capabilities every client gets. Unknown metadata is
// ignored, as RFC 7591 2 asks.
import { OAuthError } from './errors';
import { redirectUriProblem } from './redirect-uri';

export const CLIENT_NAME_MAX = 256;
export const CLIENT_GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;
export const CLIENT_RESPONSE_TYPES = ['code'] as const;
export const CLIENT_AUTH_METHOD = 'none';

export interface ClientRegistrationInput {
  redirect_uris: string[];
  client_name?: string;
  grant_types?: string[];
  response_types?: string[];
  token_endpoint_auth_method?: string;
}

export interface ClientMetadata {
  clientName: string | null;
  redirectUris: string[];
  grantTypes: string[];
  responseTypes: string[];
}

/** Shown on the consent page: control characters dropped, cut to 256 characters (not UTF-16 units). */
export function normalizeClientName(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  // eslint-disable-next-line no-control-regex
  const cleaned = raw.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').trim();
  if (cleaned === '') return null;
  return Array.from(cleaned).slice(0, CLIENT_NAME_MAX).join('');
}

export function checkClientMetadata(input: ClientRegistrationInput): ClientMetadata {
  if (input.redirect_uris.length === 0)
    throw new OAuthError('invalid_redirect_uri', 'redirect_uris must list at least one URI');
  input.redirect_uris.forEach((uri, index) => {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError('invalid_redirect_uri', `redirect_uris[${index}] ${problem}`);
  });
  // Every client may use both grants (refresh tokens are always issued) and the code response type;
  // the request may narrow nothing, and values outside these are refused by the request schema.
  return {
    clientName: normalizeClientName(input.client_name),
    redirectUris: [...new Set(input.redirect_uris)],
    grantTypes: [...CLIENT_GRANT_TYPES],
    responseTypes: [...CLIENT_RESPONSE_TYPES],
  };
}
