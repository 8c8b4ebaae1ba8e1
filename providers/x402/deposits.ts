// The chain as the USDC deposit watcher reads it: the head block and the token's Transfer logs to one
// address over a block range. One reader per RPC URL and token, cached: building viem clients is not free.
import { createPublicClient, defineChain, http, parseAbiItem, type Address, type PublicClient } from 'viem';

const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

export interface TokenTransfer {
  txHash: string;
  logIndex: number;
  blockNumber: bigint;
  from: string;
  value: bigint;
}

export interface DepositReader {
  headBlock(): Promise<bigint>;
  transfersTo(address: string, fromBlock: bigint, toBlock: bigint): Promise<TokenTransfer[]>;
}

const readers = new Map<string, DepositReader>();

export function depositReader(rpcUrl: string, chainId: number, asset: Address): DepositReader {
  const cacheKey = `${rpcUrl}|${chainId}|${asset}`;
  const cached = readers.get(cacheKey);
  if (cached) return cached;
  const chain = defineChain({
    id: chainId,
    name: `eip155:${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const client = createPublicClient({
    chain,
    transport: http(rpcUrl, { retryCount: 0, timeout: 15_000 }),
  }) as PublicClient;
  const reader: DepositReader = {
    headBlock: () => client.getBlockNumber({ cacheTime: 0 }),
    async transfersTo(address, fromBlock, toBlock) {
      const logs = await client.getLogs({
        address: asset,
        event: TRANSFER,
        args: { to: address as Address },
        fromBlock,
        toBlock,
        strict: true,
      });
      return logs.map((log) => ({
        txHash: log.transactionHash,
        logIndex: log.logIndex,
        blockNumber: log.blockNumber,
        from: log.args.from,
        value: log.args.value,
      }));
    },
  };
  readers.set(cacheKey, reader);
  return reader;
}
