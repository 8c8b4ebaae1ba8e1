// The provider catalog: list with filters, one server with its tools, and the auth schema a project
// fills in to connect it. The project's own published generated providers (not archived) are listed
// beside the catalog's, to that project only. Scope `servers:read`.
import { projectGenerated } from '../../domain/generated-servers/provider-lookup';
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
  route({
    method: 'get',
    path: '/v1/providers',
    auth: 'key',
    scope: 'servers:read',
    tags,
    operationId: 'listProviders',
    summary: 'Browse the provider catalog, filtered by category, country or text',
    description:
      "The catalog's servers, then the calling project's own published generated providers, newest first (category `generated`, country `ZZ`; archived ones and other projects' never appear). `total` counts every server this project can see, `filtered` those matching the filters.",
    query: CatalogListQuery,
    responses: {
      200: { description: 'The matching servers', schema: CatalogList },
      400: { description: '`invalid_query` with details.issues', schema: ErrorEnvelope },
    },
    async handler({ deps, principal, query }) {
      const [generated, quarantined] = await Promise.all([
        projectGenerated(deps.db, principal),
        quarantinedProviders(deps.db),
      ]);
      const visible = [...catalogServers(), ...generated.map((entry) => entry.server)];
      const matching = filterCatalog(query, visible);
      return {
        body: {
          total: visible.length,
          filtered: matching.length,
          servers: matching.map((s) => presentCatalogRow(s, deps.config, quarantined)),
        },
      };
    },
  }),
  route({
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
  route({
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
