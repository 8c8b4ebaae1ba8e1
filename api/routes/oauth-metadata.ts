// Discovery documents: authorization server metadata (RFC 8414) and protected resource metadata
// (RFC 9728). Public, and kept out of the OpenAPI document since they issue no credential.
import { GRANTABLE_SCOPES } from '../../contracts/scopes';
import {
  CLIENT_AUTH_METHOD,
  CLIENT_GRANT_TYPES,
  CLIENT_RESPONSE_TYPES,
} from '../../domain/oauth/client-metadata';
import { publicOrigin } from '../public-origin';
import { route, type AnyRoute } from '../route';

// Public documents: cacheable, and readable from browser-based clients on any origin.
const CACHE = { 'Cache-Control': 'public, max-age=300', 'Access-Control-Allow-Origin': '*' };

export const oauthMetadataRoutes: AnyRoute[] = [
  route({
    method: 'get',
    path: '/.well-known/oauth-authorization-server',
    auth: 'public',
    scope: null,
    tags: ['OAuth'],
    undocumented: true,
    operationId: 'getAuthorizationServerMetadata',
    summary: 'OAuth 2.1 authorization server metadata (RFC 8414)',
    responses: { 200: { description: 'Metadata' } },
    handler({ deps, ctx }) {
      const issuer = publicOrigin(deps.config, ctx);
      return {
        headers: CACHE,
        body: {
          issuer,
          authorization_endpoint: `${issuer}/oauth/authorize`,
          token_endpoint: `${issuer}/oauth/token`,
          registration_endpoint: `${issuer}/oauth/register`,
          scopes_supported: GRANTABLE_SCOPES,
          response_types_supported: CLIENT_RESPONSE_TYPES,
          response_modes_supported: ['query'],
          grant_types_supported: CLIENT_GRANT_TYPES,
          token_endpoint_auth_methods_supported: [CLIENT_AUTH_METHOD],
          code_challenge_methods_supported: ['S256'],
          authorization_response_iss_parameter_supported: true,
          service_documentation: `${issuer}/docs`,
        },
      };
    },
  }),
  route({
    method: 'get',
    path: '/.well-known/oauth-protected-resource',
    auth: 'public',
    scope: null,
    tags: ['OAuth'],
    undocumented: true,
    operationId: 'getProtectedResourceMetadata',
    summary: 'OAuth 2.0 protected resource metadata (RFC 9728)',
    responses: { 200: { description: 'Metadata' } },
    handler({ deps, ctx }) {
      const origin = publicOrigin(deps.config, ctx);
      return {
        headers: CACHE,
        body: {
          resource: origin,
          authorization_servers: [origin],
          scopes_supported: GRANTABLE_SCOPES,
          bearer_methods_supported: ['header'],
          resource_name: 'Agent Payments Gateway',
          resource_documentation: `${origin}/docs`,
        },
      };
    },
  }),
];
