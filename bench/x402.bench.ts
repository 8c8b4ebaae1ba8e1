// The x402 rail on the real stack and a real local chain: the 402 challenge of a link's x402 resource at
// concurrency 32 (issue target: p99 under 5 ms), and verified payments settled end to end (verify, reserve,
// workflow, broadcast, receipt, settle) at concurrency 16, beside the chain's own rate for the same
// transferWithAuthorization sent straight to the node at concurrency 16, measured in the same run.
import { createWalletClient, http, nonceManager, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { chainEnv, hardhat, startLocalChain } from '../chain/local-chain';
import { signAuthorization, v2Header, unb64 } from '../test/support/x402-buyer';
import { formatResult, machineLine, runLoad } from './support/load';
import { spawnLoad } from './support/spawn-load';
import { startBenchStack } from './support/stack';

const CHALLENGES = Number(process.env.BENCH_REQUESTS ?? 5_000);
const PAYMENTS = Number(process.env.BENCH_X402_PAYMENTS ?? 160);
const AMOUNT = 10_000n; // 0.01 USDC

async function main(): Promise<void> {
  const chain = await startLocalChain();
  Object.assign(process.env, chainEnv(chain));
  const stack = await startBenchStack();
  try {
    const tenant = await stack.createTenant();
    const payTo = privateKeyToAccount(generatePrivateKey()).address;
    const created = await stack.request('POST', '/v1/payment-links', {
      key: tenant.key,
      body: {
        title: 'bench',
        accepts: [
          { rail: 'x402', amount: '0.01', currency: 'USDC', pay_to: { kind: 'byo', address: payTo } },
        ],
      },
    });
    if (created.status !== 201) throw new Error(created.text);
    const resource = `${stack.url}/pay/${created.body.slug}/x402`;
    const challenge = await fetch(resource);
    if (challenge.status !== 402) throw new Error(`expected 402, got ${challenge.status}`);
    const accepted = unb64<{ accepts: Array<Record<string, unknown>> }>(
      challenge.headers.get('payment-required'),
    ).accepts[0];

    // The API's floor in the same run: its health probe at the same concurrency.
    const floor = await spawnLoad({
      label: 'GET /health (c=32, floor)',
      url: `${stack.url}/health`,
      total: CHALLENGES,
      concurrency: 32,
      warmup: 500,
    });
    // An error here is any answer but the 402 challenge.
    const challenges = await spawnLoad({
      label: 'GET /pay/{slug}/x402 → 402 (c=32)',
      url: resource,
      total: CHALLENGES,
      concurrency: 32,
      warmup: 500,
      expectStatus: 402,
    });

    // Authorizations signed ahead of time, round-robin over the funded buyers, so only settlement is timed.
    const sign = (i: number) =>
      signAuthorization(chain, chain.buyers[i % chain.buyers.length], { to: payTo, value: AMOUNT });
    const forGateway = await Promise.all(Array.from({ length: PAYMENTS }, (_, i) => sign(i)));

    const settled = await runLoad(
      'x402 payment settled end to end (c=16)',
      { total: PAYMENTS, concurrency: 16 },
      async (i) => {
        const response = await fetch(resource, {
          method: 'POST',
          headers: { 'PAYMENT-SIGNATURE': v2Header(accepted, forGateway[i]) },
        });
        await response.arrayBuffer();
        return response.status === 200;
      },
    );

    // Signed only now: authorizations signed before the gateway's run could lapse while it settles.
    const forChain = await Promise.all(Array.from({ length: PAYMENTS }, (_, i) => sign(i)));
    const settler = privateKeyToAccount(chain.settler.privateKey, { nonceManager });
    const wallet = createWalletClient({ account: settler, chain: hardhat, transport: http(chain.rpcUrl) });
    let firstError: string | null = null;
    // Sent in turn, as the gateway's settler sends: a node takes one account's nonces in order only.
    let sending: Promise<unknown> = Promise.resolve();
    const direct = await runLoad(
      'transferWithAuthorization straight to the node (c=16)',
      { total: PAYMENTS, concurrency: 16 },
      async (i) => {
        const { authorization: a, signature } = forChain[i];
        const send = () =>
          wallet.writeContract({
            address: chain.token.address,
            abi: chain.token.abi,
            functionName: 'transferWithAuthorization',
            args: [
              a.from,
              a.to,
              BigInt(a.value),
              BigInt(a.validAfter),
              BigInt(a.validBefore),
              a.nonce,
              signature,
            ],
          });
        const turn = sending.then(send, send);
        sending = turn.catch(() => undefined);
        const hash: Hex = await turn.catch((error: Error & { shortMessage?: string }) => {
          firstError ??= error.shortMessage ?? error.message;
          throw error;
        });
        const mined = await chain.publicClient.getTransactionReceipt({ hash }).catch(() => null);
        const receipt =
          mined ?? (await chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 }));
        return receipt.status === 'success';
      },
    );

    const onChain = await chain.balanceOf(payTo);
    console.log(machineLine());
    console.log(`x402: hardhat node (automine) on loopback, ${PAYMENTS} payments of 0.01 USDC each way`);
    console.log(formatResult(floor));
    console.log(formatResult(challenges));
    console.log(formatResult(settled));
    console.log(formatResult(direct));
    if (firstError) console.log(`  the node's first refusal of a direct transfer: ${firstError}`);
    console.log(
      `  gateway settles at ${((settled.rps / direct.rps) * 100).toFixed(0)}% of the chain's own transfer rate`,
    );
    const expected = AMOUNT * BigInt(PAYMENTS * 2 - settled.errors - direct.errors);
    if (onChain !== expected) throw new Error(`payee holds ${onChain}, expected ${expected}`);
  } finally {
    await stack.stop();
    await chain.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
