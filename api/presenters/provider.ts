// Shapes catalog servers for responses: the spec's CatalogRow, the detail with tools, the auth schema.
import { engineStatus, userFields, type CatalogServer } from '../../domain/providers/catalog';
import type { Environment } from '../../domain/tenancy/api-key-format';
import { catalogEndpoint, type ProviderEndpoints } from '../../domain/providers/endpoints';

/** `quarantined`: the providers whose provisioning is quarantined now. */
export function presentCatalogRow(
  s: CatalogServer,
  endpoints: ProviderEndpoints,
  quarantined: ReadonlySet<string>,
) {
  const status = engineStatus(s, quarantined);
  const sandboxUrl = catalogEndpoint(endpoints, s, 'test');
  return {
    id: s.id,
    name: s.name,
    pkg: s.pkg,
    category: s.category,
    country: s.country,
    auth_type: s.auth_type,
    tools_count: s.tools.length,
    status: s.status,
    description: s.description,
    sandbox_available: s.endpoints.test_mock !== undefined || Boolean(s.generated?.baseUrls.test),
    sandbox_url: sandboxUrl || null,
    provider_docs_url: s.provider_docs_url,
    provider_homepage: s.provider_homepage,
    provider_logo_url: s.provider_logo_url,
    provider_logo_fallback_url: s.provider_logo_fallback_url,
    subaccount_provisionable: s.subaccount_provisionable,
    engine_provisionable: status === 'available',
    engine_status: status,
  };
}

export function presentCatalogServer(
  s: CatalogServer,
  endpoints: ProviderEndpoints,
  quarantined: ReadonlySet<string>,
) {
  return {
    ...presentCatalogRow(s, endpoints, quarantined),
    tools: s.tools.map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: t.input_schema,
      moves_money: t.moves_money,
    })),
  };
}

export function presentAuthSchema(s: CatalogServer, environment: Environment, endpoints: ProviderEndpoints) {
  const baseUrl = catalogEndpoint(endpoints, s, environment);
  return {
    server_id: s.id,
    auth_type: s.auth_type,
    environment,
    base_url: baseUrl,
    fields: userFields(s).map((f) => ({
      name: f.name,
      kind: f.kind,
      label: f.label,
      header_name: f.header_name,
    })),
    oauth_authorize_url: s.oauth && baseUrl ? `${baseUrl}${s.oauth.authorize_path}` : null,
  };
}
