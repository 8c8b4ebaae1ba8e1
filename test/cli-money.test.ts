// The built `gateway` CLI moving money against the real stack, on both Temporal servers: a wallet
// execute on a funded wallet (once, even when repeated), and a consumer spend streamed event by event.
import { buildCli, type Cli } from './support/cli';
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';
import { expectBalanced } from './support/money';
import { pixSpend, readyConsumer } from './support/consumer-spend';
import { insertSession } from './support/spend-factory';

let cli: Cli;
beforeAll(() => {
  process.env.GATEWAY_SSE_CLOSE_DELAY_MS = '200';
  cli = buildCli();
}, 120_000);
afterAll(() => cli?.cleanup());

describe.each(TEMPORAL_SERVERS)('on the %s Temporal server', (temporal) => {
  let gw: Gateway;
  let t: Tenant;
  beforeAll(async () => {
    gw = await startGateway({ temporal });
    t = await gw.createTenant();
  }, 120_000);
  afterAll(async () => {
    await gw?.stop();
  });

  const gateway = (args: string[], stdin?: string) =>
    cli.run(['--json', ...args], { env: { GATEWAY_BASE_URL: gw.url, GATEWAY_API_KEY: t.key }, stdin });

  it('pays from a funded wallet with typed flags, and a repeated attempt moves no money again', async () => {
    const created = await gateway(['wallets', 'create', '--display-name', 'Ops', '--currency', 'BRL']);
    expect(created.code).toBe(0);
    const walletId = JSON.parse(created.stdout).id as string;
    const funded = await gateway([
      'ledger-entries',
      'create',
      '--wallet-id',
      walletId,
      '--org-id',
      t.orgId,
      '--currency',
      'BRL',
      '--amount-minor',
      '10000',
      '--kind',
      'fund',
    ]);
    expect(funded.code).toBe(0);

    const pay = [
      'wallets',
      'execute',
      walletId,
      '--amount',
      '12.50',
      '--currency',
      'BRL',
      '--recipient',
      'merchant-42',
      '--description',
      'Office supplies',
      '--mandate-id',
      'mdt_test',
      '--attempt-id',
      `att-cli-${temporal}`,
    ];
    const first = await gateway(pay);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const result = JSON.parse(first.stdout);
    expect(result).toMatchObject({
      status: 'completed',
      attempt_id: `att-cli-${temporal}`,
      wallet: { insufficientFunds: false },
    });
    const again = await gateway(pay);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual(result);

    const wallet = await gateway(['wallets', 'get', walletId]);
    expect(JSON.parse(wallet.stdout).balances[0]).toMatchObject({
      balance_minor: '8750',
      available_minor: '8750',
    });
    const entries = await gateway(['wallets', 'ledger-entries', 'list', walletId]);
    expect(
      JSON.parse(entries.stdout)
        .entries.map((e: { kind: string; amount_minor: string }) => `${e.kind}:${e.amount_minor}`)
        .reverse(),
    ).toEqual(['fund:10000', 'hold:-1250', 'debit:-1250']);
    await expectBalanced(gw, walletId);
  });

  it('prints each event of an execute stream as it arrives, ending with the outcome', async () => {
    const sessionId = await insertSession(gw, t);
    const consumer = await readyConsumer(gw, t, { fundMinor: 10_000 });
    const streamed = await gateway(
      ['consumer-payments', 'execute-stream', '--data', '-'],
      JSON.stringify(pixSpend(consumer, { session_id: sessionId })),
    );
    expect(streamed.code).toBe(0);
    const events = streamed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: string; data: Record<string, unknown> });
    const steps = events.filter((e) => e.event === 'audit').map((e) => `${e.data.step}:${e.data.status}`);
    expect(steps).toEqual(expect.arrayContaining(['hold:pass', 'debit:pass', 'receipt:pass']));
    const outcomes = events.filter((e) => e.event === 'outcome');
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0].data).toMatchObject({ http_status: 200, body: { status: 'completed' } });
    expect(events.findIndex((e) => e.event === 'outcome')).toBeGreaterThan(
      events.findIndex((e) => e.event === 'audit'),
    );
    const wallet = await gw.request('GET', `/v1/wallets/${consumer.walletId}`, { key: t.key });
    expect(wallet.body.balances[0]).toMatchObject({ balance_minor: '7500' });
  });
});
