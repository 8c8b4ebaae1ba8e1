// The receiving-wallet provider: makes (or finds again) the EVM address a consumer's provisioned x402
// links settle to. POST {base}/wallets with `{owner_ref}` under an Idempotency-Key derived from the
// consumer, answered `{id, address}`; the same key always names the same wallet.
import { isAddress } from 'viem';

export interface ProvisionedWallet {
  address: string;
  providerRef: string;
}

/** The provider could not make the wallet (refused, 5xx, no answer); nothing was provisioned for certain. */
export class WalletProvisioningFailed extends Error {}

export type WalletProvisioner = (consumerId: string) => Promise<ProvisionedWallet>;

export function walletProvisioner(baseUrl: string | undefined, timeoutMs: number): WalletProvisioner {
  return async (consumerId) => {
    // Unset for the caller's environment: refused, never made at the other environment's provider.
    if (!baseUrl)
      throw new WalletProvisioningFailed('no receiving-wallet provider is configured for this environment');
    let response: Response;
    try {
      response = await fetch(`${baseUrl.replace(/\/+$/, '')}/wallets`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': `x402-wallet:${consumerId}` },
        body: JSON.stringify({ owner_ref: consumerId }),
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'error',
      });
    } catch (error) {
      throw new WalletProvisioningFailed(`the wallet provider did not answer: ${(error as Error).message}`);
    }
    const body = (await response.json().catch(() => null)) as { id?: unknown; address?: unknown } | null;
    if (
      !response.ok ||
      typeof body?.address !== 'string' ||
      !isAddress(body.address) ||
      typeof body.id !== 'string'
    )
      throw new WalletProvisioningFailed(`the wallet provider answered ${response.status}`);
    return { address: body.address, providerRef: body.id };
  };
}
