// OAuth 2.1 request and response shapes: dynamic registration (RFC 7591), the authorization request
// and consent form, and the token endpoint. OAuth asks servers to ignore parameters they do not know
// (RFC 6749 3.1 and 3.2, RFC 7591 2), so these schemas accept extra fields instead of refusing them.
import { GRANTABLE_SCOPES } from '../../contracts/scopes';
import type { JsonSchema } from './json-schema';

const text = <const N extends number>(maxLength: N, description: string) =>
  ({ type: 'string', maxLength, description }) as const satisfies JsonSchema;
const scopeDescription = `Space-separated scope names among: ${GRANTABLE_SCOPES.join(', ')}. Omitted: everything the pasted key holds. The grant carries the named scopes the key holds (the token answer's scope lists them); naming none that the key holds is refused.`;

export const OAuthErrorBody = {
  type: 'object',
  required: ['error', 'error_description'],
  properties: { error: { type: 'string' }, error_description: { type: 'string' } },
  description: 'The OAuth error shape (RFC 6749 5.2); branch on `error`.',
} as const satisfies JsonSchema;

export const ClientRegistration = {
  type: 'object',
  required: ['redirect_uris'],
  properties: {
    redirect_uris: {
      type: 'array',
      minItems: 1,
      maxItems: 10,
      items: { type: 'string', minLength: 1, maxLength: 2000 },
      description:
        'Absolute https URLs; http only for loopback hosts (localhost, 127.0.0.0/8, [::1]); no fragment. Authorization requests must repeat one exactly.',
    },
    client_name: { type: 'string', description: 'Shown on the consent page; cut to 256 characters.' },
    grant_types: {
      type: 'array',
      items: { enum: ['authorization_code', 'refresh_token'] },
      description: 'Every client gets both.',
    },
    response_types: { type: 'array', items: { enum: ['code'] } },
    token_endpoint_auth_method: {
      type: 'string',
      description: 'Clients are public: answered as `none` whatever is asked.',
    },
  },
} as const satisfies JsonSchema;

export const RegisteredClient = {
  type: 'object',
  required: [
    'client_id',
    'client_name',
    'grant_types',
    'redirect_uris',
    'response_types',
    'token_endpoint_auth_method',
  ],
  properties: {
    client_id: { type: 'string', description: '`ocl_` plus 24 characters; public, not a secret.' },
    client_id_issued_at: { type: 'integer', description: 'Unix seconds.' },
    client_name: { type: ['string', 'null'] },
    grant_types: { type: 'array', items: { type: 'string' } },
    redirect_uris: { type: 'array', items: { type: 'string' } },
    response_types: { type: 'array', items: { type: 'string' } },
    token_endpoint_auth_method: { const: 'none' },
  },
} as const satisfies JsonSchema;

const authorizationProperties = {
  client_id: text(64, 'The registered client id.'),
  redirect_uri: text(2000, "One of the client's registered redirect URIs, exactly."),
  response_type: text(32, 'Must be `code`.'),
  code_challenge: text(128, 'PKCE: BASE64URL(SHA-256(code_verifier)), 43 characters.'),
  code_challenge_method: text(16, 'Must be `S256`.'),
  scope: text(1000, scopeDescription),
  state: text(2048, 'Opaque value returned unchanged with the code.'),
} as const satisfies Record<string, JsonSchema>;
const authorizationRequired = [
  'client_id',
  'code_challenge',
  'code_challenge_method',
  'redirect_uri',
  'response_type',
] as const;

export const AuthorizeQuery = {
  type: 'object',
  required: authorizationRequired,
  properties: authorizationProperties,
} as const satisfies JsonSchema;

export const AuthorizeForm = {
  type: 'object',
  required: authorizationRequired,
  properties: {
    ...authorizationProperties,
    api_key: text(
      200,
      'An API key of the project to connect, pasted by the person approving; exchanged for the code. Required to approve.',
    ),
    decision: {
      enum: ['approve', 'deny'],
      default: 'approve',
      description: '`deny` sends the person back with `error=access_denied`.',
    },
  },
} as const satisfies JsonSchema;

export const TokenRequestBody = {
  type: 'object',
  required: ['grant_type'],
  properties: {
    grant_type: text(
      64,
      '`authorization_code` or `refresh_token`; anything else is `unsupported_grant_type`.',
    ),
    code: text(200, 'authorization_code: the code from the redirect (single use, valid 60 seconds).'),
    code_verifier: text(128, 'authorization_code: the PKCE verifier (43 to 128 characters).'),
    redirect_uri: text(2000, 'authorization_code: the redirect URI the code was issued for.'),
    client_id: text(
      64,
      'The client id; required with authorization_code, checked when sent with refresh_token.',
    ),
    refresh_token: text(200, 'refresh_token: the latest refresh token (each one works once).'),
    scope: text(1000, 'refresh_token: optionally a narrower scope for the new access token.'),
  },
} as const satisfies JsonSchema;

export const TokenResponseBody = {
  type: 'object',
  required: ['access_token', 'token_type', 'expires_in', 'refresh_token', 'scope'],
  properties: {
    access_token: { type: 'string', description: '`cso_at_…`, valid `expires_in` seconds (one hour).' },
    token_type: { const: 'Bearer' },
    expires_in: { type: 'integer' },
    refresh_token: {
      type: 'string',
      description:
        '`cso_rt_…`, single use, valid 30 days; presenting a used one revokes every token of the grant.',
    },
    scope: { type: 'string' },
  },
} as const satisfies JsonSchema;
