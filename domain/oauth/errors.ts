// OAuth's own error vocabulary (RFC 6749 5.2, RFC 7591 3.2.2). Domain functions throw OAuthError;
// the OAuth routes render it as `{error, error_description}` or as an HTML page, never the envelope.
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_grant'
  | 'invalid_scope'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_client'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'access_denied';

export class OAuthError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
  ) {
    super(description);
    this.name = 'OAuthError';
  }
}

export interface OAuthErrorBody {
  error: OAuthErrorCode;
  error_description: string;
}

export function oauthErrorBody(error: OAuthError): OAuthErrorBody {
  return { error: error.code, error_description: error.description };
}
