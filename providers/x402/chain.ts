// The EVM chain as the x402 rail sees it: read an EIP-3009 token (balance, whether an authorization's
// nonce is spent, which transaction spent it), broadcast transferWithAuthorization once, and await a
// transaction's receipt. One client per RPC URL and settler, cached: building viem clients is not free.
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  nonceManager,
  parseAbi,
  parseAbiItem,
  type Address,
  type Hex,
  type PublicClient,
  type WalletClient,
  WaitForTransactionReceiptTimeoutError,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';

export const EIP3009_ABI = parseAbi([
  'function balanceOf(address owner) view returns (uint256)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
]);
const AUTHORIZATION_USED = parseAbiItem(
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
);

export interface TransferAuthorization {
  from: Address;
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
  signature: Hex;
}

export type ReceiptOutcome = { status: 'success' | 'reverted'; blockNumber: bigint };

export interface X402Chain {
  balanceOf(asset: Address, owner: Address): Promise<bigint>;
  authorizationUsed(asset: Address, authorizer: Address, nonce: Hex): Promise<boolean>;
  /** The transaction that spent this authorization, found from the token's AuthorizationUsed log. */
  findAuthorizationTx(asset: Address, authorizer: Address, nonce: Hex): Promise<Hex | null>;
  /** Sends transferWithAuthorization from the settler; resolves with the hash once the node accepted it. */
  broadcastTransfer(asset: Address, authorization: TransferAuthorization): Promise<Hex>;
  /** null when the chain does not know the transaction (dropped, or never sent). */
  receipt(hash: Hex, timeoutMs: number): Promise<ReceiptOutcome | null>;
}

export class ChainSettlerMissing extends Error {}

const clients = new Map<string, X402Chain>();

export function x402Chain(rpcUrl: string, chainId: number, settlerKey?: Hex): X402Chain {
  const cacheKey = `${rpcUrl}|${chainId}|${settlerKey ? privateKeyToAccount(settlerKey).address : ''}`;
  const cached = clients.get(cacheKey);
  if (cached) return cached;
  const chain = defineChain({
    id: chainId,
    name: `eip155:${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const transport = http(rpcUrl, { retryCount: 0, timeout: 15_000 });
  const reader = createPublicClient({ chain, transport }) as PublicClient;
  // The nonce manager hands concurrent broadcasts of this process distinct nonces; another process's
  // collision fails the broadcast, and its retry finds the chain's state before sending again.
  const settler: PrivateKeyAccount | null = settlerKey
    ? privateKeyToAccount(settlerKey, { nonceManager })
    : null;
  const writer: WalletClient | null = settler
    ? createWalletClient({ chain, transport, account: settler })
    : null;
  // One send at a time per settler: a node takes an account's transactions in nonce order only (hardhat's
  // automine refuses a gap outright), and concurrent sends could reach it out of order.
  let sending: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(send: () => Promise<T>): Promise<T> => {
    const turn = sending.then(send, send);
    sending = turn.catch(() => undefined);
    return turn;
  };
  const client: X402Chain = {
    balanceOf: (asset, owner) =>
      reader.readContract({ address: asset, abi: EIP3009_ABI, functionName: 'balanceOf', args: [owner] }),
    authorizationUsed: (asset, authorizer, nonce) =>
      reader.readContract({
        address: asset,
        abi: EIP3009_ABI,
        functionName: 'authorizationState',
        args: [authorizer, nonce],
      }),
    async findAuthorizationTx(asset, authorizer, nonce) {
      const logs = await reader.getLogs({
        address: asset,
        event: AUTHORIZATION_USED,
        args: { authorizer, nonce },
        fromBlock: 0n,
        toBlock: 'latest',
      });
      return logs.length ? logs[0].transactionHash : null;
    },
    async broadcastTransfer(asset, a) {
      if (!writer || !settler)
        throw new ChainSettlerMissing('X402_SETTLER_KEY is not set: cannot self-settle');
      return inTurn(() =>
        writer.writeContract({
          address: asset,
          abi: EIP3009_ABI,
          functionName: 'transferWithAuthorization',
          args: [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, a.signature],
          account: settler,
          chain,
        }),
      );
    },
    async receipt(hash, timeoutMs) {
      // A mined transaction answers at once; only a pending one is watched block by block.
      const mined = await reader.getTransactionReceipt({ hash }).catch(() => null);
      if (mined) return { status: mined.status, blockNumber: mined.blockNumber };
      try {
        const receipt = await reader.waitForTransactionReceipt({
          hash,
          timeout: timeoutMs,
          pollingInterval: 250,
        });
        return { status: receipt.status, blockNumber: receipt.blockNumber };
      } catch (error) {
        if (error instanceof WaitForTransactionReceiptTimeoutError) {
          const known = await reader.getTransaction({ hash }).catch(() => null);
          if (!known) return null;
        }
        throw error;
      }
    },
  };
  clients.set(cacheKey, client);
  return client;
}
