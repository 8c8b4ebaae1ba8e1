// Where a provider answers for a key's environment, decided here and nowhere else: a test key reaches the
// sandbox endpoint (PROVIDER_<NAME>_URL), a live key the live one (PROVIDER_<NAME>_LIVE_URL). A missing
// endpoint is missing: neither environment ever falls back to the other's.
import type { CatalogServer } from './catalog';
import type { Environment } from '../tenancy/api-key-format';

export interface ProviderEndpoints {
  providerUrls: Record<string, string>;
  providerLiveUrls: Record<string, string>;
}

/** The gateway's own providers, by the name in their variables (`pix_psp` is PROVIDER_PIX_PSP_URL). */
type ProviderName =
  'payments' | 'pix_psp' | 'ted' | 'dda' | 'kyc' | 'browser_worker' | 'x402_wallets' | 'issuer';

/** The variable that configures a provider's endpoint for an environment. */
function endpointVariable(name: string, environment: Environment): string {
  return `PROVIDER_${name.toUpperCase()}${environment === 'live' ? '_LIVE' : ''}_URL`;
}

/** No endpoint is configured for this provider in this environment: nothing was sent anywhere. */
export class EndpointNotConfigured extends Error {
  constructor(
    readonly provider: string,
    readonly environment: Environment,
  ) {
    super(
      `No ${environment === 'live' ? 'live' : 'sandbox'} endpoint is configured for ${provider} (${endpointVariable(provider, environment)})`,
    );
    this.name = 'EndpointNotConfigured';
  }
}

export function providerEndpoint(
  config: ProviderEndpoints,
  name: ProviderName,
  environment: Environment,
): string | undefined {
  return (environment === 'live' ? config.providerLiveUrls : config.providerUrls)[name];
}

export function requireEndpoint(
  config: ProviderEndpoints,
  name: ProviderName,
  environment: Environment,
): string {
  const url = providerEndpoint(config, name, environment);
  if (!url) throw new EndpointNotConfigured(name, environment);
  return url;
}

/**
 * A catalog server's base URL for an environment; '' when it has none. The sandbox is the endpoint its
 * `test_mock` names; live is PROVIDER_<test_mock>_LIVE_URL when set (a staging twin), else the catalog's own.
 * A generated server has its own per environment, from its document or as its project set them.
 */
export function catalogEndpoint(
  config: ProviderEndpoints,
  server: CatalogServer,
  environment: Environment,
): string {
  if (server.generated) return server.generated.baseUrls[environment] ?? '';
  const name = server.endpoints.test_mock;
  if (environment === 'live')
    return (name ? config.providerLiveUrls[name] : undefined) ?? server.endpoints.live ?? '';
  return name ? (config.providerUrls[name] ?? '') : '';
}
