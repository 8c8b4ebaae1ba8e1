// USDC deposits on the local chain, through HTTP, for a live project and a test one: a USDC wallet's
// deposit address is watched by its depositWatch workflow; a transfer to it is credited once after the
// confirmations (external_ref `usdc:<txhash>:<logIndex>`), and neither a worker restart in the middle of
// the watch nor a scan repeated after a crash credits twice or misses a transfer. The clock of the
// time-skipping server is moved one poll at a time.
import { sql } from 'slonik';
import { z } from 'zod';
import { createWalletClient, http, type Address, type Hex } from 'viem';
import { hardhat } from '../chain/local-chain';
import { DEPOSIT_POLL_MS } from '../workflows/deposit-watch';
import { workflowIds } from '../contracts/workflow-ids';
import { SEARCH_ATTRIBUTES } from '../contracts/search-attributes';
import { Worker } from '@temporalio/worker';
import { waitFor } from './support/consents';
import { replayBundle, replayFinished } from './support/histories';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { newWallet } from './support/money';

describe.each(['live', 'test'] as const)('USDC deposits of a %s project', (environment) => {
  let gw: Gateway;
  let acme: Tenant;

  beforeAll(async () => {
    // The test server never moves a stopped worker's sticky tasks back to the shared queue; a real server does.
    process.env.TEMPORAL_MAX_CACHED_WORKFLOWS = '0';
    gw = await startGateway({ temporal: 'time-skipping', chain: true });
    acme = await gw.createTenant({ name: 'Acme', environment });
  });
  afterAll(async () => gw?.stop());

  const chain = () => gw.chain!;
  /** Buyer `index` sends `amount` test USDC (6 decimals) to `to`; resolves once it is mined. */
  async function send(index: number, to: string, amount: bigint): Promise<Hex> {
    const wallet = createWalletClient({
      chain: { ...hardhat, rpcUrls: { default: { http: [chain().rpcUrl] } } },
      transport: http(chain().rpcUrl),
      account: chain().buyers[index],
    });
    const hash = await wallet.writeContract({
      address: chain().token.address,
      abi: chain().token.abi,
      functionName: 'transfer',
      args: [to as Address, amount],
    });
    await chain().publicClient.waitForTransactionReceipt({ hash });
    return hash;
  }
  const mine = (blocks: number) =>
    chain().publicClient.request({
      method: 'hardhat_mine' as never,
      params: [`0x${blocks.toString(16)}`] as never,
    });
  const cursor = async (walletId: string) =>
    gw.db.oneFirst(sql.type(z.object({ next_block: z.bigint() }))`
      SELECT next_block FROM wallet_deposit_addresses WHERE wallet_id = ${walletId}`);
  /** The scans the wallet's watcher has finished, read from its history. */
  const scans = async (walletId: string) =>
    (
      (await gw.env.client.workflow.getHandle(workflowIds.depositWatch(walletId)).fetchHistory()).events ?? []
    ).filter((e) => e.activityTaskCompletedEventAttributes).length;
  /** One poll: the clock moves by the watchers' interval, and this wallet's next scan has finished. */
  async function poll(walletId: string): Promise<void> {
    const done = await scans(walletId);
    await gw.env.sleep(DEPOSIT_POLL_MS);
    await waitFor(async () => (await scans(walletId)) > done);
  }
  const balance = async (walletId: string): Promise<string> =>
    (await gw.request('GET', `/v1/wallets/${walletId}`, { key: acme.key })).body.balances[0].balance_minor;
  const entries = (walletId: string) =>
    gw.db.any(sql.type(z.object({ kind: z.string(), amount_minor: z.bigint(), external_ref: z.string() }))`
      SELECT kind, amount_minor, external_ref FROM wallet_ledger_entries WHERE wallet_id = ${walletId} ORDER BY id`);
  const credited = (walletId: string) =>
    gw.db.anyFirst(sql.type(z.object({ ref: z.string() }))`
      SELECT data->>'external_ref' AS ref FROM events
      WHERE org_id = ${acme.orgId} AND type = 'wallet.topup.credited' AND data->>'wallet_id' = ${walletId} ORDER BY id`);
  const ref = (hash: string, logIndex = 0) => `usdc:${hash.toLowerCase()}:${logIndex}`;

  async function depositWallet(): Promise<{ walletId: string; address: string }> {
    const walletId = await newWallet(gw, acme, { currency: 'USDC' });
    const read = await gw.request('GET', `/v1/wallets/${walletId}/deposit-address`, { key: acme.key });
    expect(read.status).toBe(200);
    return { walletId, address: read.body.address };
  }

  it('gives a USDC wallet one deposit address, watched by one workflow, and refuses other wallets', async () => {
    const { walletId, address } = await depositWallet();
    const again = await gw.request('GET', `/v1/wallets/${walletId}/deposit-address`, { key: acme.key });
    expect(again.body).toEqual({
      object: 'deposit_address',
      wallet_id: walletId,
      currency: 'USDC',
      network: chain().network,
      asset: chain().token.address,
      address,
      confirmations: 3,
      created_at: expect.any(String),
    });
    const watch = await gw.deps.temporal.client.workflow
      .getHandle(workflowIds.depositWatch(walletId))
      .describe();
    expect(watch.status.name).toBe('RUNNING');
    expect(watch.typedSearchAttributes.get(SEARCH_ATTRIBUTES.Rail)).toBe('usdc');
    expect(watch.typedSearchAttributes.get(SEARCH_ATTRIBUTES.OrgId)).toBe(acme.orgId);

    // Closing an empty wallet ends its watcher at the next poll.
    const closing = await depositWallet();
    await gw.request('POST', `/v1/wallets/${closing.walletId}/close`, { key: acme.key });
    await gw.env.sleep(DEPOSIT_POLL_MS);
    const { result } = await replayFinished(
      gw,
      workflowIds.depositWatch(closing.walletId),
      `deposit-watch-closed.${environment}`,
    );
    expect(result).toBe('closed');

    const brl = await newWallet(gw, acme);
    const refused = await gw.request('GET', `/v1/wallets/${brl}/deposit-address`, { key: acme.key });
    expect([refused.status, refused.body.error.code]).toEqual([422, 'topup_method_unsupported']);
    const other = await gw.createTenant({ name: 'Other', environment });
    const hidden = await gw.request('GET', `/v1/wallets/${walletId}/deposit-address`, { key: other.key });
    expect([hidden.status, hidden.body.error.code]).toEqual([404, 'not_found']);
  });

  it('credits a deposit once it has its confirmations, and only once', async () => {
    const { walletId, address } = await depositWallet();
    const hash = await send(0, address, 12_500_000n);
    await poll(walletId);
    // Mined, but one confirmation of three: nothing yet.
    expect(await balance(walletId)).toBe('0');

    await mine(2);
    await poll(walletId);
    await waitFor(async () => (await balance(walletId)) === '12500000');
    expect(await entries(walletId)).toEqual([
      { kind: 'fund', amount_minor: 12_500_000n, external_ref: ref(hash) },
    ]);
    const listed = await gw.request('GET', `/v1/wallets/${walletId}/topups`, { key: acme.key });
    expect(listed.body.topups).toEqual([
      expect.objectContaining({
        method: 'usdc',
        currency: 'USDC',
        status: 'credited',
        amount_minor: '12500000',
        external_ref: ref(hash),
        pix: null,
        usdc: expect.objectContaining({
          network: chain().network,
          tx_hash: hash.toLowerCase(),
          log_index: 0,
          from: chain().buyers[0].address,
        }),
      }),
    ]);

    // Later polls see the same transfer again in no range: still one credit.
    await mine(3);
    await poll(walletId);
    expect(await entries(walletId)).toHaveLength(1);
    expect(await credited(walletId)).toEqual([ref(hash)]);
  });

  it('neither double credits nor misses a transfer across a worker restart or a scan repeated after a crash', async () => {
    const { walletId, address } = await depositWallet();
    const first = await send(1, address, 1_000_000n);
    await mine(2);
    await poll(walletId);
    await waitFor(async () => (await balance(walletId)) === '1000000');
    const scannedFrom = await cursor(walletId);

    // The worker goes away mid-watch; two deposits land while it is gone.
    await gw.stopWorker();
    const second = await send(2, address, 2_000_000n);
    const third = await send(3, address, 3_000_000n);
    await mine(2);
    await gw.env.sleep(DEPOSIT_POLL_MS);
    await gw.startWorker();
    await waitFor(async () => (await balance(walletId)) === '6000000');

    // A worker lost after its credits committed but before the cursor moved scans those blocks again.
    await gw.db
      .query(sql.unsafe`UPDATE wallet_deposit_addresses SET next_block = ${(scannedFrom - 5n).toString()}
      WHERE wallet_id = ${walletId}`);
    await mine(1);
    await poll(walletId);
    expect(await cursor(walletId)).toBeGreaterThan(scannedFrom);
    expect(await balance(walletId)).toBe('6000000');
    expect((await entries(walletId)).map((e) => e.external_ref)).toEqual([
      ref(first),
      ref(second),
      ref(third),
    ]);
    expect(await credited(walletId)).toEqual([ref(first), ref(second), ref(third)]);
  });
});
