// What a link's x402 resource asks for: the x402 v2 PaymentRequired (sent base64 in PAYMENT-REQUIRED)
// and the v1 body older clients read, both built from the link's x402 Accept and the rail's settings.
import type { PaymentRequired, PaymentRequirements } from './x402-types';
import type { X402Settings } from '../../../runtime/config';
import type { Accept } from '../accepts';
import type { LinkRow } from '../links';

export interface X402Resource {
  url: string;
  description: string;
}

export function x402Requirements(settings: X402Settings, accept: Accept): PaymentRequirements {
  return {
    scheme: 'exact',
    network: settings.network as PaymentRequirements['network'],
    asset: settings.asset,
    amount: accept.amount_atomic,
    payTo: accept.pay_to,
    maxTimeoutSeconds: settings.maxTimeoutSeconds,
    // The token's EIP-712 domain: clients sign transferWithAuthorization under it.
    extra: { name: settings.assetName, version: settings.assetVersion, assetTransferMethod: 'eip3009' },
  };
}

export function paymentRequired(
  requirements: PaymentRequirements,
  resource: X402Resource,
  error?: string,
): PaymentRequired {
  return {
    x402Version: 2,
    ...(error ? { error } : {}),
    resource: { url: resource.url, description: resource.description, mimeType: 'application/json' },
    accepts: [requirements],
  };
}

/** The v1 body: the same requirement under v1's field names (maxAmountRequired, resource per accept). */
export function paymentRequiredV1(
  requirements: PaymentRequirements,
  resource: X402Resource,
  error: string,
): Record<string, unknown> {
  return {
    x402Version: 1,
    error,
    accepts: [
      {
        scheme: requirements.scheme,
        network: requirements.network,
        maxAmountRequired: requirements.amount,
        resource: resource.url,
        description: resource.description,
        mimeType: 'application/json',
        payTo: requirements.payTo,
        maxTimeoutSeconds: requirements.maxTimeoutSeconds,
        asset: requirements.asset,
        extra: requirements.extra,
      },
    ],
  };
}

export const x402AcceptOf = (link: LinkRow): Accept | undefined =>
  link.accepts.find((accept) => accept.rail === 'x402');
