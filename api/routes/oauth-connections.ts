// Connecting an OAuth server: the project starts the authorization-code flow (PKCE) and gets the
// provider's authorize URL; the provider sends the person back to the gateway's managed callback, which
// exchanges the code and stores the tokens sealed as a new connection.
import { ApiError } from '../../domain/errors';
import { catalogServer } from '../../domain/providers/catalog';
import { createConnection } from '../../domain/providers/connections';
import { consumeOAuthFlow, recordFlowConnection, startOAuthFlow } from '../../domain/providers/oauth-states';
import { requireServer } from '../../domain/providers/resolve';
import { keyServiceFor } from '../../domain/vault/select';
import { oauthClientFor, OAuthGrantRefused, requestTokens } from '../../providers/auth/oauth-refresh';
import { UpstreamUnreachable } from '../../providers/upstream/send';
import { catalogEndpoint } from '../../domain/providers/endpoints';
import { ErrorEnvelope } from '../../schema/http/common';
import { Connection, Label } from '../../schema/http/connections';
import { SlugParams } from '../../schema/http/providers';
import { presentConnection } from '../presenters/connection';
import { publicOrigin } from '../public-origin';
import { route, type AnyRoute } from '../route';

const tags = ['Connections'];
const CALLBACK_PATH = '/v1/providers/oauth/callback';

export const oauthConnectionRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/v1/providers/:slug/oauth/authorize',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'startProviderOAuth',
    summary: 'Start connecting an OAuth server: the URL to send the account holder to',
    params: SlugParams,
    body: { type: 'object', additionalProperties: false, properties: { label: Label } },
    responses: {
      201: { description: '`{authorize_url, state, expires_at}`; the callback stores the connection' },
      400: { description: '`not_oauth_server`, `invalid_body`', schema: ErrorEnvelope },
      404: { description: '`server_unknown`', schema: ErrorEnvelope },
      503: {
        description: '`endpoint_missing`: no endpoint for the environment, or no OAuth client configured',
        schema: ErrorEnvelope,
      },
    },
    async handler({ deps, principal, params, body, ctx }) {
      const server = await requireServer(deps.db, principal, params.slug);
      if (!server.oauth)
        throw new ApiError(
          400,
          'not_oauth_server',
          `${server.id} takes a pasted credential; use POST /v1/providers/${server.id}/connections`,
          { auth_type: server.auth_type },
        );
      const baseUrl = catalogEndpoint(deps.config, server, principal.environment);
      const client = oauthClientFor(server, principal.environment, deps.config.providerOAuthClients);
      if (!baseUrl || !client)
        throw new ApiError(
          503,
          'endpoint_missing',
          `No ${principal.environment} OAuth endpoint or client is configured for ${server.id}`,
        );
      const redirectUri = `${publicOrigin(deps.config, ctx)}${CALLBACK_PATH}`;
      const flow = await startOAuthFlow(deps.db, deps.config.encryptionKeys, {
        orgId: principal.orgId,
        projectId: principal.projectId,
        provider: server.id,
        environment: principal.environment,
        label: body.label ?? null,
        redirectUri,
      });
      const url = new URL(`${baseUrl}${server.oauth.authorize_path}`);
      for (const [name, value] of Object.entries({
        response_type: 'code',
        client_id: client.clientId,
        redirect_uri: redirectUri,
        scope: server.oauth.scope,
        state: flow.state,
        code_challenge: flow.codeChallenge,
        code_challenge_method: 'S256',
      }))
        url.searchParams.set(name, value);
      return {
        status: 201,
        body: { authorize_url: url.toString(), state: flow.state, expires_at: flow.expiresAt },
      };
    },
  }),
  route({
    method: 'get',
    path: CALLBACK_PATH,
    auth: 'public',
    scope: null,
    tags,
    operationId: 'providerOAuthCallback',
    summary: 'The managed OAuth callback providers redirect to; stores the connection',
    query: {
      type: 'object',
      properties: {
        code: { type: 'string', maxLength: 2048 },
        state: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,256}$' },
        error: { type: 'string', maxLength: 256 },
      },
    },
    responses: {
      201: { description: 'The new connection', schema: Connection },
      400: {
        description: '`oauth_state_invalid` (unknown, used or expired state), `oauth_denied`',
        schema: ErrorEnvelope,
      },
      502: { description: '`provider_error`: the token exchange failed', schema: ErrorEnvelope },
    },
    async handler({ deps, query }) {
      const flow = query.state
        ? await consumeOAuthFlow(deps.db, deps.config.encryptionKeys, query.state)
        : null;
      if (!flow)
        throw new ApiError(
          400,
          'oauth_state_invalid',
          'This authorization is unknown, already used or expired; start again',
        );
      if (query.error || !query.code)
        throw new ApiError(400, 'oauth_denied', 'The provider did not grant access', {
          provider_error: query.error ?? 'no_code',
        });
      const server = catalogServer(flow.provider);
      const baseUrl = server ? catalogEndpoint(deps.config, server, flow.environment) : '';
      if (!server || !baseUrl)
        throw new ApiError(
          400,
          'oauth_state_invalid',
          'The server of this authorization is no longer available',
        );
      let tokens;
      try {
        tokens = await requestTokens(
          server,
          baseUrl,
          oauthClientFor(server, flow.environment, deps.config.providerOAuthClients),
          {
            grant_type: 'authorization_code',
            code: query.code,
            redirect_uri: flow.redirectUri,
            code_verifier: flow.codeVerifier,
          },
          { timeoutMs: deps.config.providerTimeoutMs, maxResponseBytes: 64 * 1024 },
        );
      } catch (error) {
        if (error instanceof OAuthGrantRefused || error instanceof UpstreamUnreachable) {
          throw new ApiError(502, 'provider_error', 'The provider did not exchange the authorization code', {
            provider: server.id,
          });
        }
        throw error;
      }
      const row = await createConnection(
        deps.db,
        keyServiceFor(deps.config.vault),
        { orgId: flow.orgId, projectId: flow.projectId },
        {
          server,
          environment: flow.environment,
          label: flow.label,
          secrets: tokens,
          settings: {},
        },
      );
      await recordFlowConnection(deps.db, query.state!, row.id);
      return { status: 201, body: presentConnection(row) };
    },
  }),
];
