// The mock x402 facilitator: a real HTTP server speaking the facilitator API (POST /verify, POST /settle,
// GET /supported) that verifies and settles on the local chain with the official @x402/evm facilitator
// scheme, paying gas from its own account. It counts calls so a test can tell it was used, and can be told
// to answer 503 to exercise the gateway's retries.
import { createWalletClient, http, publicActions, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { hardhat, type LocalChain } from '../../chain/local-chain';
import type {
  PaymentPayload,
  PaymentRequirements,
  SettleResponse,
  VerifyResponse,
} from '../../domain/payment-links/x402/x402-types';
import { startJsonServer } from './json-server';
import type { RunningMock } from './index';

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
  /** Answer the next `count` requests with 503. */
  failNext(count: number): void;
}

/** The facilitator's gas account: hardhat's last default account, apart from the gateway's settler. */
const FACILITATOR_KEY: Hex = '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba';

export async function startX402FacilitatorMock(chain: LocalChain): Promise<X402FacilitatorMock> {
  // Loaded through the packages' `exports` (which this project's module resolution does not read for types).
  const { ExactEvmScheme } = require('@x402/evm/exact/facilitator') as FacilitatorModule;
  const { toFacilitatorEvmSigner } = require('@x402/evm') as SignerModule;
  const account = privateKeyToAccount(FACILITATOR_KEY);
  const client = createWalletClient({ account, chain: hardhat, transport: http(chain.rpcUrl) }).extend(
    publicActions,
  );
  const scheme = new ExactEvmScheme(toFacilitatorEvmSigner({ ...client, address: account.address }));
  const calls = { verify: 0, settle: 0 };
  let failing = 0;
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
    if (failing > 0) {
      failing--;
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
  return { ...server, calls, failNext: (count) => (failing = count) };
}
