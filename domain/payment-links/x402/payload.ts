// Rebuilds, from a stored authorization, the x402 v2 payment payload and requirement a facilitator
// settles, and the header forms the buyer's client reads back (PAYMENT-RESPONSE).
import type { PaymentPayload, PaymentRequirements, SettleResponse } from './x402-types';
import { getAddress } from 'viem';
import type { X402Settings } from '../../../runtime/config';
import type { AuthorizationRow } from './authorizations';

export function storedRequirements(settings: X402Settings, row: AuthorizationRow): PaymentRequirements {
  return {
    scheme: 'exact',
    network: settings.network as PaymentRequirements['network'],
    asset: getAddress(row.asset),
    amount: row.value.toString(),
    payTo: getAddress(row.pay_to),
    maxTimeoutSeconds: settings.maxTimeoutSeconds,
    extra: { name: settings.assetName, version: settings.assetVersion, assetTransferMethod: 'eip3009' },
  };
}

export function storedPayload(settings: X402Settings, row: AuthorizationRow): PaymentPayload {
  return {
    x402Version: 2,
    accepted: storedRequirements(settings, row),
    payload: {
      authorization: {
        from: getAddress(row.payer),
        to: getAddress(row.pay_to),
        value: row.value.toString(),
        validAfter: row.valid_after.toString(),
        validBefore: row.valid_before.toString(),
        nonce: row.nonce,
      },
      signature: row.signature,
    },
  };
}

export const encodeHeader = (value: unknown): string =>
  Buffer.from(JSON.stringify(value), 'utf8').toString('base64');

export function settleResponse(
  network: string,
  payer: string,
  outcome:
    { success: true; transaction: string } | { success: false; transaction: string; errorReason: string },
): SettleResponse {
  return {
    ...outcome,
    network: network as SettleResponse['network'],
    payer: getAddress(payer),
  };
}
