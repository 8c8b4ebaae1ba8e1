// Facilitator mode (X402_FACILITATOR_URL): the gateway verifies and settles x402 link payments through a
// facilitator speaking the x402 facilitator API, here a real HTTP mock running the official @x402/evm
// facilitator scheme against the local chain. Tested on both Temporal servers.
import { sql } from 'slonik';
import { type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { z } from 'zod';
import type { LocalChain } from '../chain/local-chain';
import type { X402FacilitatorMock } from '../providers/mocks/x402-facilitator';
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';
import { payingFetch, unb64 } from './support/x402-buyer';

const AMOUNT = 2_000_000n;

describe.each(TEMPORAL_SERVERS)('x402 link payments through a facilitator (%s Temporal)', (temporal) => {
  let gw: Gateway;
  let chain: LocalChain;
  let facilitator: X402FacilitatorMock;
  let acme: Tenant;

  beforeAll(async () => {
    gw = await startGateway({ temporal, chain: true, x402Facilitator: true });
    chain = gw.chain!;
    facilitator = gw.mocks.x402_facilitator as X402FacilitatorMock;
    acme = await gw.createTenant({ name: 'Acme' });
  });
  afterAll(async () => gw?.stop());

  const newLink = async () => {
    const payTo = privateKeyToAccount(generatePrivateKey()).address;
    const created = await gw.request('POST', '/v1/payment-links', {
      key: acme.key,
      body: {
        title: 'Facilitated',
        accepts: [{ rail: 'x402', amount: '2', currency: 'USDC', pay_to: { kind: 'byo', address: payTo } }],
      },
    });
    expect(created.status).toBe(201);
    return { ...(created.body as { id: string; slug: string }), payTo };
  };
  const paymentsOf = (linkId: string) =>
    gw.db.any(sql.type(z.object({ status: z.string(), provider_ref: z.string().nullable() }))`
      SELECT status, provider_ref FROM payment_link_payments WHERE link_id = ${linkId}`);

  it('verifies and settles through the facilitator, which moves the USDC on chain', async () => {
    const { id, slug, payTo } = await newLink();
    const calls = { ...facilitator.calls };
    const response = await payingFetch(chain.buyers[0], chain).fetch(`${gw.url}/pay/${slug}/x402`);
    expect(response.status).toBe(200);
    const settled = unb64<{ transaction: Hex }>(response.headers.get('payment-response'));
    expect(facilitator.calls).toEqual({ verify: calls.verify + 1, settle: calls.settle + 1 });
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: settled.transaction });
    // The facilitator's account sent it, not the gateway's settler.
    expect(receipt.from.toLowerCase()).toBe(privateKeyToAccount(chain.facilitatorKey).address.toLowerCase());
    expect(await chain.balanceOf(payTo)).toBe(AMOUNT);
    expect(await paymentsOf(id)).toEqual([{ status: 'succeeded', provider_ref: settled.transaction }]);
  });

  it('retries a settle the facilitator answered 503, and settles once', async () => {
    const { id, slug, payTo } = await newLink();
    facilitator.failNext('settle', 1);
    const settles = facilitator.calls.settle;
    const response = await payingFetch(chain.buyers[1], chain).fetch(`${gw.url}/pay/${slug}/x402`);
    expect(response.status).toBe(200);
    expect(facilitator.calls.settle).toBe(settles + 1);
    expect(await chain.balanceOf(payTo)).toBe(AMOUNT);
    expect((await paymentsOf(id)).map((p) => p.status)).toEqual(['succeeded']);
  });

  it("refuses with 402 what the facilitator's /verify refuses (an unfunded payer), recording nothing", async () => {
    const { id, slug, payTo } = await newLink();
    const settles = facilitator.calls.settle;
    const broke = privateKeyToAccount(generatePrivateKey());
    const response = await payingFetch(broke, chain).fetch(`${gw.url}/pay/${slug}/x402`);
    expect(response.status).toBe(402);
    // The facilitator simulated the transfer, which reverts for want of funds; its reason is passed on.
    expect(unb64(response.headers.get('payment-required')).error).toBe(
      'invalid_exact_evm_transaction_simulation_failed',
    );
    expect(facilitator.calls.settle).toBe(settles);
    expect(await paymentsOf(id)).toEqual([]);
    expect(await chain.balanceOf(payTo)).toBe(0n);
  });
});
