// Builds the rail providers from configuration: the Pix PSP at PROVIDER_PIX_PSP_URL and the TED
// provider at PROVIDER_TED_URL (the mocks fill both in dev and tests).
import type { Config } from '../../runtime/config';
import { pixPspAdapter, type PixPsp } from '../pix/psp-adapter';
import { tedAdapter } from '../ted/bank-adapter';
import type { Rail, RailProvider } from './rail';

function urlOf(config: Config, name: string): string {
  const url = config.providerUrls[name];
  if (!url) throw new Error(`PROVIDER_${name.toUpperCase()}_URL is not set`);
  return url;
}

export function pixPsp(config: Config): PixPsp {
  return pixPspAdapter({ baseUrl: urlOf(config, 'pix_psp'), timeoutMs: config.providerTimeoutMs });
}

export function railProvider(config: Config, rail: Rail): RailProvider {
  return rail === 'pix'
    ? pixPsp(config)
    : tedAdapter({ baseUrl: urlOf(config, 'ted'), timeoutMs: config.providerTimeoutMs });
}

/** Where the PSP posts settlement notices; null when the gateway has no public address configured. */
export function pixNotificationUrl(config: Config): string | null {
  return config.publicBaseUrl
    ? `${config.publicBaseUrl.replace(/\/+$/, '')}/v1/providers/pix-psp/webhooks`
    : null;
}
