// The buyer's side of x402 in tests: the official client (@x402/fetch wrapping fetch with an @x402/evm
// exact scheme over a viem account), and hand-signed EIP-3009 authorizations for the payments the
// official client would never send (expired, wrong amount, replayed, v1 headers).
import { randomBytes } from 'node:crypto';
import { getAddress, type Address, type Hex, type LocalAccount } from 'viem';
import type { LocalChain } from '../../chain/local-chain';

interface FetchModule {
  wrapFetchWithPaymentFromConfig(
    fetchImpl: typeof fetch,
    config: {
      schemes: Array<{ network: string; client: unknown }>;
      spendControls?: {
        allowedAssets: Array<{ network: string; asset: string; maxAmountPerPayment?: string }>;
      };
    },
  ): typeof fetch;
}
interface EvmModule {
  ExactEvmScheme: new (signer: LocalAccount) => unknown;
}
const { wrapFetchWithPaymentFromConfig } = require('@x402/fetch') as FetchModule;
const { ExactEvmScheme } = require('@x402/evm') as EvmModule;

/** fetch that pays 402s as `account` would; `sent` collects each PAYMENT-SIGNATURE it sent. */
export function payingFetch(
  account: LocalAccount,
  chain: LocalChain,
): { fetch: typeof fetch; sent: string[] } {
  const sent: string[] = [];
  const recording: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const signature = request.headers.get('payment-signature');
    if (signature) sent.push(signature);
    return fetch(request);
  };
  return {
    fetch: wrapFetchWithPaymentFromConfig(recording, {
      schemes: [{ network: chain.network, client: new ExactEvmScheme(account) }],
      // The local token is not one of the client's known assets: the buyer opts in to it, capped at 10 USDC.
      spendControls: {
        allowedAssets: [
          { network: chain.network, asset: chain.token.address, maxAmountPerPayment: '10000000' },
        ],
      },
    }),
    sent,
  };
}

export interface Authorization {
  from: Address;
  to: Address;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: Hex;
}

export async function signAuthorization(
  chain: LocalChain,
  account: LocalAccount,
  over: { to: Address; value: bigint; validBefore?: bigint; validAfter?: bigint },
): Promise<{ authorization: Authorization; signature: Hex }> {
  const now = BigInt(Math.floor(Date.now() / 1000));
  const message = {
    from: account.address,
    to: getAddress(over.to),
    value: over.value,
    validAfter: over.validAfter ?? 0n,
    validBefore: over.validBefore ?? now + 300n,
    nonce: `0x${randomBytes(32).toString('hex')}` as Hex,
  };
  const signature = await account.signTypedData({
    domain: {
      name: chain.token.name,
      version: chain.token.version,
      chainId: chain.chainId,
      verifyingContract: chain.token.address,
    },
    types: {
      TransferWithAuthorization: [
        { name: 'from', type: 'address' },
        { name: 'to', type: 'address' },
        { name: 'value', type: 'uint256' },
        { name: 'validAfter', type: 'uint256' },
        { name: 'validBefore', type: 'uint256' },
        { name: 'nonce', type: 'bytes32' },
      ],
    },
    primaryType: 'TransferWithAuthorization',
    message,
  });
  return {
    authorization: {
      ...message,
      value: message.value.toString(),
      validAfter: message.validAfter.toString(),
      validBefore: message.validBefore.toString(),
    },
    signature,
  };
}

export const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64');
export const unb64 = <T = Record<string, unknown>>(value: string | null): T =>
  JSON.parse(Buffer.from(value ?? '', 'base64').toString('utf8')) as T;

/** A v2 PAYMENT-SIGNATURE for the requirement the link's 402 named. */
export const v2Header = (
  accepted: Record<string, unknown>,
  signed: { authorization: Authorization; signature: Hex },
) => b64({ x402Version: 2, accepted, payload: signed });

/** A v1 X-PAYMENT header. */
export const v1Header = (network: string, signed: { authorization: Authorization; signature: Hex }) =>
  b64({ x402Version: 1, scheme: 'exact', network, payload: signed });
