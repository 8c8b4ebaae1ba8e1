// The mock x402 facilitator: a real HTTP server speaking the facilitator API (POST /verify, POST /settle,
// GET /supported) that verifies and settles on the local chain with the official @x402/evm facilitator
// scheme, paying gas from its own account. It counts calls so a test can tell it was used, and can be told
// to answer 503 to exercise the gateway's retries.
import { createWalletClient, http, publicActions } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { hardhat, type LocalChain } from '../../chain/local-chain';
import type {
  PaymentPayload,
  PaymentRequirements,
  SettleResponse,
  VerifyResponse,
} from '../../domain/payment-links/x402/x402-types';
import { startJsonServer } from './json-server';
import type { RunningMock } from './running-mock';

interface FacilitatorScheme {
  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse>;
  settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse>;
}
interface FacilitatorModule {
  ExactEvmScheme: new (signer: unknown) => FacilitatorScheme;
}
interface SignerModule {
  toFacilitatorEvmSigner(client: unknown): unknown;
}

export interface X402FacilitatorMock extends RunningMock {
  calls: { verify: number; settle: number };
  /** Answer the next `count` requests to `operation` with 503. */
  failNext(operation: 'verify' | 'settle', count: number): void;
}

export async function startX402FacilitatorMock(chain: LocalChain): Promise<X402FacilitatorMock> {
  // Loaded through the packages' `exports` (which this project's module resolution does not read for types).
  const { ExactEvmScheme } = require('@x402/evm/exact/facilitator') as FacilitatorModule;
  const { toFacilitatorEvmSigner } = require('@x402/evm') as SignerModule;
  const account = privateKeyToAccount(chain.facilitatorKey);
  const client = createWalletClient({ account, chain: hardhat, transport: http(chain.rpcUrl) }).extend(
    publicActions,
  );
  const scheme = new ExactEvmScheme(toFacilitatorEvmSigner({ ...client, address: account.address }));
  const calls = { verify: 0, settle: 0 };
  const failing = { verify: 0, settle: 0 };
  const server = await startJsonServer(async (request) => {
    if (request.method === 'GET' && request.path === '/supported')
      return {
        status: 200,
        body: {
          kinds: [{ x402Version: 2, scheme: 'exact', network: chain.network }],
          extensions: [],
          signers: {},
        },
      };
    if (request.method !== 'POST' || (request.path !== '/verify' && request.path !== '/settle'))
      return { status: 404, body: { error: 'not found' } };
    const operation = request.path === '/verify' ? 'verify' : 'settle';
    if (failing[operation] > 0) {
      failing[operation]--;
      return { status: 503, body: { error: 'unavailable' } };
    }
    const body = request.body as {
      paymentPayload?: PaymentPayload;
      paymentRequirements?: PaymentRequirements;
    };
    if (!body?.paymentPayload || !body.paymentRequirements)
      return { status: 400, body: { error: 'paymentPayload and paymentRequirements are required' } };
    if (request.path === '/verify') {
      calls.verify++;
      return { status: 200, body: await scheme.verify(body.paymentPayload, body.paymentRequirements) };
    }
    calls.settle++;
    return { status: 200, body: await scheme.settle(body.paymentPayload, body.paymentRequirements) };
  });
  return { ...server, calls, failNext: (operation, count) => (failing[operation] = count) };
}
