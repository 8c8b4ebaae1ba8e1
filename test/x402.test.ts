// Paying a link over x402 on a real local chain, through HTTP, on both Temporal servers: the resource
// answers 402 with its requirements, the official client pays it (USDC moves on chain, the link counts
// the payment, the event is written), bad authorizations are refused with nothing recorded, capped links
// hold against racing buyers, and a settlement that reached the chain before the worker recorded it is
// found on the chain instead of being broadcast again.
import { sql } from 'slonik';
import { parseAbiItem, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { z } from 'zod';
import type { LocalChain } from '../chain/local-chain';
import { nextLink } from '../domain/receipts/chain';
import { ed25519Matches } from '../domain/receipts/signatures';
import { waitFor } from './support/consents';
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';
import { payingFetch, signAuthorization, unb64, v1Header, v2Header } from './support/x402-buyer';

const AMOUNT = 1_250_000n; // 1.25 USDC
const linkReceipt = z.object({
  id: z.string(),
  body: z.record(z.unknown()),
  chain_seq: z.number(),
  chain_prev_hash: z.string().nullable(),
  chain_body_hash: z.string(),
  chain_hash: z.string(),
  receipt_sig_ed25519: z.string(),
  ed25519_kid: z.string(),
});

describe.each(TEMPORAL_SERVERS)('payment links over x402 (%s Temporal)', (temporal) => {
  let gw: Gateway;
  let chain: LocalChain;
  let acme: Tenant;
  let nextBuyer = 0;
  const buyer = () => chain.buyers[nextBuyer++];

  beforeAll(async () => {
    gw = await startGateway({ temporal, chain: true });
    chain = gw.chain!;
    acme = await gw.createTenant({ name: 'Acme' });
  });
  afterAll(async () => gw?.stop());

  const newLink = async (over: Record<string, unknown> = {}) => {
    const payTo = privateKeyToAccount(generatePrivateKey()).address;
    const created = await gw.request('POST', '/v1/payment-links', {
      key: acme.key,
      body: {
        title: 'Agent API credits',
        accepts: [
          { rail: 'x402', amount: '1.25', currency: 'USDC', pay_to: { kind: 'byo', address: payTo } },
        ],
        ...over,
      },
    });
    expect(created.status).toBe(201);
    return { ...(created.body as { id: string; slug: string }), payTo };
  };
  const link = async (id: string) =>
    (await gw.request('GET', `/v1/payment-links/${id}`, { key: acme.key })).body;
  const paymentsOf = (linkId: string) =>
    gw.db.any(sql.type(z.object({ id: z.string(), status: z.string(), provider_ref: z.string().nullable() }))`
      SELECT id, status, provider_ref FROM payment_link_payments WHERE link_id = ${linkId} ORDER BY created_at`);
  const challengeOf = async (slug: string) => {
    const answer = await gw.request('GET', `/pay/${slug}/x402`);
    expect(answer.status).toBe(402);
    return unb64<{ accepts: Array<Record<string, unknown>> }>(answer.headers.get('payment-required'))
      .accepts[0];
  };
  const pay = (slug: string, headers: Record<string, string>) =>
    gw.request('POST', `/pay/${slug}/x402`, { headers });

  it('answers 402 with the v2 PAYMENT-REQUIRED header and the v1 body, and writes nothing', async () => {
    const { id, slug, payTo } = await newLink();
    const answer = await gw.request('GET', `/pay/${slug}/x402`);
    expect(answer.status).toBe(402);
    const required = unb64(answer.headers.get('payment-required'));
    expect(required).toMatchObject({
      x402Version: 2,
      resource: { url: `${gw.url}/pay/${slug}/x402` },
      accepts: [
        {
          scheme: 'exact',
          network: chain.network,
          asset: chain.token.address,
          amount: AMOUNT.toString(),
          payTo,
          extra: { name: 'USD Coin', version: '2' },
        },
      ],
    });
    expect(answer.body).toMatchObject({
      x402Version: 1,
      accepts: [{ scheme: 'exact', network: chain.network, maxAmountRequired: AMOUNT.toString(), payTo }],
    });
    // The pay page answers the same to a client asking for JSON.
    const viaPage = await gw.request('GET', `/pay/${slug}`, { headers: { Accept: 'application/json' } });
    expect(viaPage.status).toBe(402);
    expect(await paymentsOf(id)).toEqual([]);
  });

  it('is paid end to end by the official x402 client: USDC moves on chain, the link counts it, a receipt is sealed and the event written', async () => {
    const { id, slug, payTo } = await newLink();
    const account = buyer();
    const before = await chain.balanceOf(account.address);
    const { fetch: payFetch } = payingFetch(account, chain);
    const response = await payFetch(`${gw.url}/pay/${slug}/x402`);
    expect(response.status).toBe(200);
    const settled = unb64<{ success: boolean; transaction: Hex; network: string; payer: string }>(
      response.headers.get('payment-response'),
    );
    expect(settled).toMatchObject({ success: true, network: chain.network, payer: account.address });
    const mined = await chain.publicClient.getTransactionReceipt({ hash: settled.transaction });
    expect(mined.status).toBe('success');
    expect(await chain.balanceOf(payTo)).toBe(AMOUNT);
    expect(await chain.balanceOf(account.address)).toBe(before - AMOUNT);
    const body = (await response.json()) as { payment: Record<string, unknown> };
    expect(body.payment).toMatchObject({
      status: 'succeeded',
      rail: 'x402',
      amount_minor: AMOUNT.toString(),
    });
    expect((await link(id)).use_count).toBe(1);
    const events = await gw.db.any(sql.type(z.object({ data: z.record(z.unknown()) }))`
      SELECT data FROM events WHERE org_id = ${acme.orgId} AND type = 'payment_link.payment_succeeded' AND data->>'link_id' = ${id}`);
    expect(events.map((e) => e.data.provider_ref)).toEqual([settled.transaction]);
    // The receipt is sealed like a consumer receipt: canonical body hash, chain link, Ed25519 signature.
    const receipt = await gw.db.one(sql.type(linkReceipt)`
      SELECT id, body, chain_seq, chain_prev_hash, chain_body_hash, chain_hash, receipt_sig_ed25519, ed25519_kid
      FROM payment_link_receipts WHERE link_id = ${id}`);
    expect(events[0].data.receipt_id).toBe(receipt.id);
    expect(receipt.body).toMatchObject({
      link_id: id,
      payment: {
        rail: 'x402',
        amount_minor: AMOUNT.toString(),
        provider_ref: settled.transaction,
        pay_to: payTo,
      },
    });
    expect(nextLink(null, receipt.body, null)).toMatchObject({
      seq: receipt.chain_seq,
      body_hash: receipt.chain_body_hash,
      hash: receipt.chain_hash,
    });
    const keys = (await gw.request('GET', '/v1/receipts/signing-keys', { key: acme.key })).body
      .keys as Array<{
      kid: string;
      x: string;
    }>;
    const signer = keys.find((k) => k.kid === receipt.ed25519_kid)!;
    expect(ed25519Matches(signer.x, receipt.chain_hash, receipt.receipt_sig_ed25519)).toBe(true);
  });

  it("settles a provisioned link into its consumer's receiving wallet", async () => {
    const consumer = await gw.request('POST', '/v1/consumers', {
      key: acme.key,
      body: { display_name: 'Ana' },
    });
    const created = await gw.request('POST', '/v1/payment-links', {
      key: acme.key,
      body: {
        title: 'Provisioned',
        accepts: [
          {
            rail: 'x402',
            amount: '1.25',
            currency: 'USDC',
            pay_to: { kind: 'provisioned', consumer_id: consumer.body.id },
          },
        ],
      },
    });
    expect(created.status).toBe(201);
    const wallet = created.body.accepts[0].pay_to as Address;
    const response = await payingFetch(buyer(), chain).fetch(`${gw.url}/pay/${created.body.slug}/x402`);
    expect(response.status).toBe(200);
    expect(await chain.balanceOf(wallet)).toBe(AMOUNT);
  });

  it('refuses a replayed authorization with 402 and records nothing more', async () => {
    const { id, slug, payTo } = await newLink();
    const account = buyer();
    const { fetch: payFetch, sent } = payingFetch(account, chain);
    expect((await payFetch(`${gw.url}/pay/${slug}/x402`)).status).toBe(200);
    const balance = await chain.balanceOf(account.address);
    const replay = await pay(slug, { 'PAYMENT-SIGNATURE': sent[0] });
    expect(replay.status).toBe(402);
    expect(unb64(replay.headers.get('payment-required')).error).toBe(
      'invalid_exact_evm_payload_authorization_nonce_used',
    );
    expect(await chain.balanceOf(account.address)).toBe(balance);
    expect(await chain.balanceOf(payTo)).toBe(AMOUNT);
    expect((await paymentsOf(id)).map((p) => p.status)).toEqual(['succeeded']);
  });

  it('refuses an expired authorization and a wrong amount with 402, recording nothing and moving nothing', async () => {
    const { id, slug, payTo } = await newLink();
    const accepted = await challengeOf(slug);
    const account = buyer();
    const now = BigInt(Math.floor(Date.now() / 1000));
    const expired = await signAuthorization(chain, account, {
      to: payTo,
      value: AMOUNT,
      validBefore: now - 10n,
    });
    const short = await signAuthorization(chain, account, { to: payTo, value: AMOUNT - 1n });
    const elsewhere = await signAuthorization(chain, account, { to: account.address, value: AMOUNT });
    const reasons = [];
    for (const signed of [expired, short, elsewhere]) {
      const refused = await pay(slug, { 'PAYMENT-SIGNATURE': v2Header(accepted, signed) });
      expect(refused.status).toBe(402);
      reasons.push(unb64(refused.headers.get('payment-required')).error);
    }
    expect(reasons).toEqual([
      'invalid_exact_evm_payload_authorization_valid_before',
      'invalid_exact_evm_payload_authorization_value',
      'invalid_exact_evm_payload_recipient_mismatch',
    ]);
    const forged = await signAuthorization(chain, account, { to: payTo, value: AMOUNT });
    const other = buyer();
    const claimed = { ...forged, authorization: { ...forged.authorization, from: other.address as Address } };
    const refused = await pay(slug, { 'PAYMENT-SIGNATURE': v2Header(accepted, claimed) });
    expect(unb64(refused.headers.get('payment-required')).error).toBe('invalid_exact_evm_payload_signature');
    const garbage = await pay(slug, { 'PAYMENT-SIGNATURE': 'not base64 json' });
    expect([garbage.status, unb64(garbage.headers.get('payment-required')).error]).toEqual([
      402,
      'invalid_payload',
    ]);
    expect(await paymentsOf(id)).toEqual([]);
    expect(await chain.balanceOf(payTo)).toBe(0n);
  });

  it('accepts a v1 X-PAYMENT header and answers X-PAYMENT-RESPONSE', async () => {
    const { slug, payTo } = await newLink();
    const signed = await signAuthorization(chain, buyer(), { to: payTo, value: AMOUNT });
    const paid = await pay(slug, { 'X-PAYMENT': v1Header(chain.network, signed) });
    expect(paid.status).toBe(200);
    const settled = unb64(paid.headers.get('x-payment-response'));
    expect(settled).toMatchObject({ success: true, transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(await chain.balanceOf(payTo)).toBe(AMOUNT);
  });

  it('lets exactly 3 of 8 racing x402 buyers pay a max_uses: 3 link; the others are refused before any broadcast', async () => {
    const { id, slug, payTo } = await newLink({ max_uses: 3 });
    const racers = Array.from({ length: 8 }, () => buyer());
    const balances = await Promise.all(racers.map((r) => chain.balanceOf(r.address)));
    const answers = await Promise.all(
      racers.map((r) => payingFetch(r, chain).fetch(`${gw.url}/pay/${slug}/x402`)),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses.filter((s) => s !== 200)).toEqual(Array(5).fill(409));
    expect(await chain.balanceOf(payTo)).toBe(3n * AMOUNT);
    const after = await Promise.all(racers.map((r) => chain.balanceOf(r.address)));
    const moved = after.map((balance, i) => balances[i] - balance);
    // Each winner paid once; each refused buyer paid nothing.
    expect(moved.sort()).toEqual([0n, 0n, 0n, 0n, 0n, AMOUNT, AMOUNT, AMOUNT].sort());
    expect(answers.map((a, i) => [a.status, moved[i] === AMOUNT]).filter(([s]) => s === 200)).toHaveLength(3);
    expect(await link(id)).toMatchObject({ use_count: 3, status: 'paid' });
    expect(await paymentsOf(id)).toHaveLength(3);
    // The three receipts form one chain, each linked to the one before.
    const chainRows = await gw.db.any(sql.type(linkReceipt)`
      SELECT id, body, chain_seq, chain_prev_hash, chain_body_hash, chain_hash, receipt_sig_ed25519, ed25519_kid
      FROM payment_link_receipts WHERE link_id = ${id} ORDER BY chain_seq`);
    expect(chainRows.map((r) => r.chain_seq)).toEqual([1, 2, 3]);
    expect(chainRows.map((r) => r.chain_prev_hash)).toEqual([
      null,
      chainRows[0].chain_hash,
      chainRows[1].chain_hash,
    ]);
  });

  it('settles a payment whose transfer reached the chain before the worker recorded it, without broadcasting again', async () => {
    const { id, slug, payTo } = await newLink();
    const accepted = await challengeOf(slug);
    const account = buyer();
    const before = await chain.balanceOf(account.address);
    const signed = await signAuthorization(chain, account, { to: payTo, value: AMOUNT });
    await gw.stopWorker();
    const answer = pay(slug, { 'PAYMENT-SIGNATURE': v2Header(accepted, signed) });
    await waitFor(async () => (await paymentsOf(id)).length === 1);
    // The lost activity's broadcast: the transfer is on chain, its hash recorded nowhere.
    const a = signed.authorization;
    const { createWalletClient, http } = await import('viem');
    const settler = privateKeyToAccount(chain.settler.privateKey);
    const wallet = createWalletClient({ account: settler, transport: http(chain.rpcUrl) });
    const sentHash = await wallet.writeContract({
      chain: null,
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
        signed.signature,
      ],
    });
    await chain.publicClient.waitForTransactionReceipt({ hash: sentHash });
    await gw.startWorker();
    const paid = await answer;
    expect(paid.status).toBe(200);
    expect(unb64(paid.headers.get('payment-response')).transaction).toBe(sentHash);
    const used = await chain.publicClient.getLogs({
      address: chain.token.address,
      event: parseAbiItem('event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)'),
      args: { authorizer: account.address, nonce: a.nonce },
      fromBlock: 0n,
    });
    expect(used).toHaveLength(1);
    expect(await chain.balanceOf(account.address)).toBe(before - AMOUNT);
    expect((await paymentsOf(id)).map((p) => [p.status, p.provider_ref])).toEqual([['succeeded', sentHash]]);
  });
});
