// A real local EVM chain for tests and `npm run dev`'s test mode: hardhat's node started offline on a
// loopback port, the LocalUSDC token (EIP-3009, 6 decimals) deployed by account 0, and test USDC minted
// to the buyer accounts. Account 0 also settles x402 payments (it pays the gas of transferWithAuthorization).
import { spawn } from 'node:child_process';
import net from 'node:net';
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  type Address,
  type Hex,
  type PublicClient,
  type WalletClient,
  type Account,
} from 'viem';
import { mnemonicToAccount, type HDAccount } from 'viem/accounts';
import { compileContract, type CompiledContract } from './compile';

// Defined here rather than taken from viem/chains, whose types pull in browser-only declarations.
export const hardhat = defineChain({
  id: 31337,
  name: 'hardhat',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: ['http://127.0.0.1:8545'] } },
});

const MNEMONIC = 'test test test test test test test test test test test junk';
/** Each buyer account starts with this much test USDC (atomic units, 6 decimals). */
export const BUYER_START_BALANCE = 1_000_000n * 10n ** 6n;
export const BUYER_ACCOUNTS = 18;

export interface LocalChain {
  rpcUrl: string;
  chainId: number;
  /** CAIP-2 network id, as x402 v2 names it. */
  network: string;
  token: { address: Address; name: string; version: string; abi: CompiledContract['abi'] };
  /** Account 0: deployer, minter and the gateway's settler. */
  settler: { address: Address; privateKey: Hex };
  /** Accounts 1..18, each funded with BUYER_START_BALANCE. */
  buyers: HDAccount[];
  /** Account 19: a facilitator's gas account (the mock facilitator settles from it). */
  facilitatorKey: Hex;
  publicClient: PublicClient;
  balanceOf(address: Address): Promise<bigint>;
  mint(address: Address, amount: bigint): Promise<void>;
  stop(): Promise<void>;
}

const privateKeyOf = (account: HDAccount): Hex => {
  const key = account.getHdKey().privateKey;
  if (!key) throw new Error('HD account without a private key');
  return `0x${Buffer.from(key).toString('hex')}`;
};

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Starts hardhat's node and resolves once it listens; hardhat prints the line below when it does. */
async function startNode(port: number): Promise<() => Promise<void>> {
  const cli = require.resolve('hardhat/internal/cli/cli');
  const child = spawn(
    process.execPath,
    [cli, 'node', '--hostname', '127.0.0.1', '--port', String(port), '--config', 'hardhat.config.js'],
    {
      cwd: __dirname,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true', CI: 'true' },
    },
  );
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Started HTTP')) {
        // The node prints every account and request; past start-up nothing more is read.
        child.stdout.removeListener('data', onData);
        child.stdout.resume();
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`hardhat node exited (${code}): ${output.slice(-2000)}`)));
    child.once('error', reject);
  });
  return () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
}

export async function startLocalChain(options: { port?: number } = {}): Promise<LocalChain> {
  const compiled = compileContract('LocalUSDC.sol', 'LocalUSDC');
  const port = options.port ?? (await freePort());
  const stopNode = await startNode(port);
  try {
    const rpcUrl = `http://127.0.0.1:${port}`;
    const transport = http(rpcUrl);
    const publicClient = createPublicClient({ chain: hardhat, transport }) as PublicClient;
    const deployer = mnemonicToAccount(MNEMONIC, { addressIndex: 0 });
    const wallet: WalletClient = createWalletClient({ chain: hardhat, transport, account: deployer });
    const deployHash = await wallet.deployContract({
      abi: compiled.abi,
      bytecode: compiled.bytecode,
      account: deployer as Account,
      chain: hardhat,
    });
    const deployed = await publicClient.waitForTransactionReceipt({ hash: deployHash });
    const tokenAddress = deployed.contractAddress!;
    const mint = async (address: Address, amount: bigint) => {
      const hash = await wallet.writeContract({
        address: tokenAddress,
        abi: compiled.abi,
        functionName: 'mint',
        args: [address, amount],
        account: deployer as Account,
        chain: hardhat,
      });
      await publicClient.waitForTransactionReceipt({ hash });
    };
    const buyers = Array.from({ length: BUYER_ACCOUNTS }, (_, index) =>
      mnemonicToAccount(MNEMONIC, { addressIndex: index + 1 }),
    );
    for (const buyer of buyers) await mint(buyer.address, BUYER_START_BALANCE);
    return {
      rpcUrl,
      chainId: hardhat.id,
      network: `eip155:${hardhat.id}`,
      token: { address: tokenAddress, name: 'USD Coin', version: '2', abi: compiled.abi },
      settler: { address: deployer.address, privateKey: privateKeyOf(deployer) },
      buyers,
      facilitatorKey: privateKeyOf(mnemonicToAccount(MNEMONIC, { addressIndex: 19 })),
      publicClient,
      mint,
      async balanceOf(address) {
        return (await publicClient.readContract({
          address: tokenAddress,
          abi: compiled.abi,
          functionName: 'balanceOf',
          args: [address],
        })) as bigint;
      },
      stop: stopNode,
    };
  } catch (error) {
    await stopNode();
    throw error;
  }
}

/** The settings that point the gateway at this chain (see runtime/config.ts). */
export function chainEnv(chain: LocalChain): Record<string, string> {
  return {
    X402_RPC_URL: chain.rpcUrl,
    X402_CHAIN_ID: String(chain.chainId),
    X402_ASSET: chain.token.address,
    X402_ASSET_NAME: chain.token.name,
    X402_ASSET_VERSION: chain.token.version,
    X402_SETTLER_KEY: chain.settler.privateKey,
  };
}
