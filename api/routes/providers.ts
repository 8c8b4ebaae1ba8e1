// The provider catalog: list with filters, one server with its tools, and the auth schema a project
// fills in to connect it. Scope `servers:read`.
import { catalogServers, filterCatalog } from '../../domain/providers/catalog';
import { requireServer } from '../../domain/providers/resolve';
import { quarantinedProviders } from '../../domain/provisioning/quarantine';
import { ErrorEnvelope } from '../../schema/http/common';
import {
  AuthSchema,
  CatalogList,
  CatalogListQuery,
  CatalogServerDetail,
  SlugParams,
  type CatalogListQueryValues,
} from '../../schema/http/providers';
import { presentAuthSchema, presentCatalogRow, presentCatalogServer } from '../presenters/provider';
import { route, type AnyRoute } from '../route';
import { verifyConnectionRoute } from './verify-connection';

const tags = ['Providers'];
const unknown = {
  description: "`server_unknown`: not in the catalog (another project's generated provider answers the same)",
  schema: ErrorEnvelope,
};

export const providerRoutes: AnyRoute[] = [
  route<unknown, CatalogListQueryValues, Record<string, string>, 'key'>({
    method: 'get',
    path: '/v1/providers',
    auth: 'key',
    scope: 'servers:read',
    tags,
    operationId: 'listProviders',
    summary: 'Browse the provider catalog, filtered by category, country or text',
    query: CatalogListQuery,
    responses: {
      200: { description: 'The matching servers', schema: CatalogList },
      400: { description: '`invalid_query` with details.issues', schema: ErrorEnvelope },
    },
    async handler({ deps, query }) {
      const matching = filterCatalog(query);
      const quarantined = await quarantinedProviders(deps.db);
      return {
        body: {
          total: catalogServers().length,
          filtered: matching.length,
          servers: matching.map((s) => presentCatalogRow(s, deps.config, quarantined)),
        },
      };
    },
  }),
  route<unknown, unknown, { slug: string }, 'key'>({
    method: 'get',
    path: '/v1/providers/:slug',
    auth: 'key',
    scope: 'servers:read',
    tags,
    operationId: 'getProvider',
    summary: 'One catalog server with its tools',
    params: SlugParams,
    responses: {
      200: { description: 'The catalog row and its tools', schema: CatalogServerDetail },
      404: unknown,
    },
    async handler({ deps, principal, params }) {
      const server = await requireServer(deps.db, principal, params.slug);
      return { body: presentCatalogServer(server, deps.config, await quarantinedProviders(deps.db)) };
    },
  }),
  route<unknown, unknown, { slug: string }, 'key'>({
    method: 'get',
    path: '/v1/providers/:slug/auth-schema',
    auth: 'key',
    scope: 'servers:read',
    tags,
    operationId: 'getProviderAuthSchema',
    summary: "The credential fields a project supplies to connect the server, for the key's environment",
    params: SlugParams,
    responses: { 200: { description: 'The auth schema', schema: AuthSchema }, 404: unknown },
    async handler({ deps, principal, params }) {
      const server = await requireServer(deps.db, principal, params.slug);
      return { body: presentAuthSchema(server, principal.environment, deps.config) };
    },
  }),
  verifyConnectionRoute,
];
