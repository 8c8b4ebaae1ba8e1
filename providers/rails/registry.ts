// Builds the rail providers of an environment from configuration: the Pix PSP at PROVIDER_PIX_PSP_URL and
// the TED provider at PROVIDER_TED_URL for test keys (the mocks in dev and tests), their _LIVE_URL twins
// for live keys.
import type { Environment } from '../../domain/tenancy/api-key-format';
import type { Config } from '../../runtime/config';
import { requireEndpoint } from '../../domain/providers/endpoints';
import { pixPspAdapter, type PixPsp } from '../pix/psp-adapter';
import { tedAdapter } from '../ted/bank-adapter';
import type { Rail, RailProvider } from './rail';

export function pixPsp(config: Config, environment: Environment): PixPsp {
  return pixPspAdapter({
    baseUrl: requireEndpoint(config, 'pix_psp', environment),
    timeoutMs: config.providerTimeoutMs,
  });
}

export function railProvider(config: Config, rail: Rail, environment: Environment): RailProvider {
  return rail === 'pix'
    ? pixPsp(config, environment)
    : tedAdapter({
        baseUrl: requireEndpoint(config, 'ted', environment),
        timeoutMs: config.providerTimeoutMs,
      });
}

/** Where the PSP posts settlement notices; null when the gateway has no public address configured. */
export function pixNotificationUrl(config: Config): string | null {
  return config.publicBaseUrl
    ? `${config.publicBaseUrl.replace(/\/+$/, '')}/v1/providers/pix-psp/webhooks`
    : null;
}
