// The OAuth 2.1 operations (outside /v1, no credential): dynamic client registration, the consent
// page and its form, and the token endpoint. Handlers stay thin: domain/oauth holds the rules, and
// each route renders OAuth errors in its own protocol (JSON `{error, error_description}` or HTML).
import { checkClientMetadata } from '../../domain/oauth/client-metadata';
import { findClient, registerClient } from '../../domain/oauth/clients';
import { redeemAuthorizationCode } from '../../domain/oauth/code-redemption';
import { approveAuthorization } from '../../domain/oauth/consent';
import {
  checkAuthorizationRequest,
  type AuthorizationParams,
  type AuthorizationRequest,
} from '../../domain/oauth/authorization-request';
import { OAuthError, oauthErrorBody } from '../../domain/oauth/errors';
import { redirectOrigin, redirectWith } from '../../domain/oauth/redirect-uri';
import { refreshTokens } from '../../domain/oauth/refresh';
import { parseTokenRequest } from '../../domain/oauth/token-request';
import type { ApiError } from '../../domain/errors';
import {
  AuthorizeForm,
  AuthorizeQuery,
  ClientRegistration,
  OAuthErrorBody,
  RegisteredClient,
  TokenRequestBody,
  TokenResponseBody,
} from '../../schema/http/oauth';
import type { AppDeps } from '../deps';
import { consentPage, errorPage, pageHeaders } from '../pages/oauth-consent';
import { publicOrigin } from '../public-origin';
import { route, type AnyRoute, type Reply } from '../route';

const tags = ['OAuth'];
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
// Browser-based public clients post form-encoded token requests (a CORS simple request, no preflight).
// No ambient credential rides on them, so any origin may read the answer.
const TOKEN_HEADERS = { ...NO_STORE, 'Access-Control-Allow-Origin': '*' };
const HTML = 'text/html; charset=utf-8';

function oauthJson(status: number, error: OAuthError, headers: Record<string, string> = NO_STORE): Reply {
  return { status, body: oauthErrorBody(error), headers };
}

function errorReply(error: OAuthError): Reply {
  return { status: 400, type: HTML, body: errorPage(error.code, error.description), headers: pageHeaders() };
}

function inputErrorPage(error: ApiError): Reply {
  return errorReply(new OAuthError('invalid_request', error.message));
}

/** Every refusal of an authorization request is a page for the person, never a redirect. */
async function authorizationRequest(
  deps: AppDeps,
  params: AuthorizationParams,
): Promise<AuthorizationRequest | Reply> {
  const client = params.client_id ? await findClient(deps.db, params.client_id) : null;
  try {
    return checkAuthorizationRequest(client, params);
  } catch (error) {
    if (error instanceof OAuthError) return errorReply(error);
    throw error;
  }
}

function consentReply(request: AuthorizationRequest, status: number, error?: string): Reply {
  const fields = {
    response_type: 'code',
    client_id: request.client.id,
    redirect_uri: request.redirectUri,
    code_challenge: request.codeChallenge,
    code_challenge_method: 'S256',
    scope: request.scopes === null ? null : request.scopes.join(' '),
    state: request.state,
  };
  return {
    status,
    type: HTML,
    body: consentPage({
      clientName: request.client.client_name,
      redirectUri: request.redirectUri,
      scopes: request.scopes,
      fields,
      error,
    }),
    headers: pageHeaders([redirectOrigin(request.redirectUri)]),
  };
}

export const oauthRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/oauth/register',
    auth: 'public',
    scope: null,
    tags,
    operationId: 'registerOAuthClient',
    summary: 'Register an OAuth client (RFC 7591); clients are public and use PKCE',
    body: ClientRegistration,
    responses: {
      201: { description: 'The registered client', schema: RegisteredClient },
      400: { description: '`invalid_redirect_uri` or `invalid_client_metadata`', schema: OAuthErrorBody },
    },
    onInputError(error) {
      const issues = (error.details?.issues ?? []) as Array<{ path: string }>;
      const aboutRedirects = issues.some((issue) => issue.path.startsWith('/redirect_uris'));
      return oauthJson(
        400,
        new OAuthError(aboutRedirects ? 'invalid_redirect_uri' : 'invalid_client_metadata', error.message),
      );
    },
    async handler({ deps, body }) {
      let metadata;
      try {
        metadata = checkClientMetadata(body);
      } catch (error) {
        if (error instanceof OAuthError) return oauthJson(400, error);
        throw error;
      }
      const client = await registerClient(deps.db, metadata);
      return {
        status: 201,
        headers: NO_STORE,
        body: {
          client_id: client.id,
          client_id_issued_at: Math.floor(Date.parse(client.created_at) / 1000),
          client_name: client.client_name,
          grant_types: client.grant_types,
          redirect_uris: client.redirect_uris,
          response_types: client.response_types,
          token_endpoint_auth_method: client.token_endpoint_auth_method,
        },
      };
    },
  }),
  route({
    method: 'get',
    path: '/oauth/authorize',
    auth: 'public',
    scope: null,
    tags,
    operationId: 'authorizeOAuthClient',
    summary: 'The consent page: shows the client and the scopes it asks for, and takes an API key',
    description: 'Any problem with the request answers a 400 HTML page; it never redirects to the client.',
    query: AuthorizeQuery,
    responses: {
      200: { description: 'Consent page', contentType: HTML, schema: { type: 'string' } },
      400: { description: 'Error page', contentType: HTML, schema: { type: 'string' } },
    },
    onInputError: inputErrorPage,
    async handler({ deps, query }) {
      const request = await authorizationRequest(deps, query);
      if (!('client' in request)) return request;
      return consentReply(request, 200);
    },
  }),
  route({
    method: 'post',
    path: '/oauth/authorize',
    auth: 'public',
    scope: null,
    tags,
    operationId: 'approveOAuthClient',
    summary: 'Exchange a pasted API key for a one-time authorization code',
    description:
      "Approving answers 302 to `<redirect_uri>?code=…&state=…&iss=…`; the code is single use, valid 60 seconds, and bound to the client, redirect URI, PKCE challenge, scope and the key's project. " +
      'Denying answers 302 with `error=access_denied`. A refused key or scope re-renders the consent page with 400; a bad request answers a 400 HTML page.',
    // The consent page posts a form; scripted clients may send the same fields as JSON.
    body: AuthorizeForm,
    bodyTypes: ['form', 'json'],
    responses: {
      302: { description: 'Back to the client with `code` and `state` (or `error=access_denied`)' },
      400: {
        description: 'Consent page with the reason, or error page',
        contentType: HTML,
        schema: { type: 'string' },
      },
    },
    onInputError: inputErrorPage,
    async handler({ deps, body, ctx }) {
      const request = await authorizationRequest(deps, body);
      if (!('client' in request)) return request;
      const iss = publicOrigin(deps.config, ctx);
      if (body.decision === 'deny') {
        return {
          status: 302,
          headers: {
            ...NO_STORE,
            Location: redirectWith(request.redirectUri, {
              error: 'access_denied',
              state: request.state,
              iss,
            }),
          },
        };
      }
      try {
        const approved = await approveAuthorization(
          deps.db,
          deps.config.apiKeyPepper,
          request,
          body.api_key ?? '',
        );
        return {
          status: 302,
          headers: {
            ...NO_STORE,
            Location: redirectWith(request.redirectUri, { code: approved.code, state: request.state, iss }),
          },
        };
      } catch (error) {
        if (error instanceof OAuthError) return consentReply(request, 400, error.description);
        throw error;
      }
    },
  }),
  route({
    method: 'post',
    path: '/oauth/token',
    auth: 'public',
    scope: null,
    tags,
    operationId: 'issueOAuthToken',
    summary: 'Issue tokens for an authorization code (with PKCE) or a refresh token (rotated on every use)',
    body: TokenRequestBody,
    bodyTypes: ['form', 'json'],
    responses: {
      200: {
        description: 'Access token (one hour) and refresh token (30 days, single use)',
        schema: TokenResponseBody,
      },
      400: {
        description: '`invalid_grant`, `invalid_request`, `invalid_scope` or `unsupported_grant_type`',
        schema: OAuthErrorBody,
      },
    },
    onInputError: (error) => oauthJson(400, new OAuthError('invalid_request', error.message), TOKEN_HEADERS),
    async handler({ deps, body }) {
      try {
        const request = parseTokenRequest(body);
        const tokens =
          request.grantType === 'authorization_code'
            ? await redeemAuthorizationCode(deps.db, request)
            : await refreshTokens(deps.db, request);
        return { body: tokens, headers: TOKEN_HEADERS };
      } catch (error) {
        if (error instanceof OAuthError) return oauthJson(400, error, TOKEN_HEADERS);
        throw error;
      }
    },
  }),
];
