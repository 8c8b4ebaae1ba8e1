// The split of a paid call's price, as a property over random prices and fee rates: the tenant's share and
// the platform fee are never negative and always sum to the price (no unit created or lost), the fee never
// exceeds the rate's share; then the same property through real paid calls: for random prices and rates the
// caller's debit equals the tenant's credit plus the fee's, in the ledger.
import { sql } from 'slonik';
import { z } from 'zod';
import { splitPrice, minorToPrice, priceToMinor } from '../domain/tool-servers/money';
import { MCP_UPSTREAM_AUTH, type McpUpstreamMock } from '../providers/mocks/mcp-upstream';
import { startGateway, type Gateway } from './support/harness';
import { fund, newWallet, seeded } from './support/money';

describe('splitting a price', () => {
  const random = seeded(16);
  const bigRandom = (bits: number) => {
    let value = 0n;
    for (let i = 0; i < bits; i += 16) value = (value << 16n) | BigInt(Math.floor(random() * 65536));
    return value & ((1n << BigInt(bits)) - 1n);
  };

  it('never creates or loses a unit, over random prices and fee rates', () => {
    const edges = [0n, 1n, 2n, 9_999n, 10_000n, 10_001n, 9_223_372_036_854_775_807n];
    const cases: Array<[bigint, number]> = [];
    for (const price of edges)
      for (const bps of [0, 1, 4_999, 5_000, 9_999, 10_000]) cases.push([price, bps]);
    for (let i = 0; i < 5_000; i++)
      cases.push([bigRandom(1 + Math.floor(random() * 63)), Math.floor(random() * 10_001)]);
    for (const [price, bps] of cases) {
      const { tenantShareMinor, feeMinor } = splitPrice(price, bps);
      expect(tenantShareMinor + feeMinor).toBe(price);
      expect(tenantShareMinor >= 0n && feeMinor >= 0n).toBe(true);
      expect(feeMinor * 10_000n <= price * BigInt(bps)).toBe(true);
      expect((feeMinor + 1n) * 10_000n > price * BigInt(bps)).toBe(true);
    }
  });

  it('reads decimal prices into minor units and back without floats', () => {
    expect(priceToMinor('0.25', 'BRL')).toBe(25n);
    expect(priceToMinor('12', 'BRL')).toBe(1200n);
    expect(priceToMinor('0.10', 'BRL')).toBe(10n);
    expect(priceToMinor('0.123456', 'USDC')).toBe(123_456n);
    expect(priceToMinor('0.001', 'BRL')).toBeNull();
    expect(priceToMinor('92233720368547758.08', 'BRL')).toBeNull();
    expect(minorToPrice(1234n, 'BRL')).toBe('12.34');
    expect(minorToPrice(5n, 'BRL')).toBe('0.05');
    expect(minorToPrice(100n, 'BRL')).toBe('1');
  });
});

describe('the split of real paid calls', () => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(async () => {
    await gw?.stop();
  });

  it('debits the caller exactly what the tenant and the platform are credited, for random prices and rates', async () => {
    const random = seeded(42);
    const upstream = gw.mocks.mcp_upstream as McpUpstreamMock;
    const caller = await gw.createTenant();
    const wallet = await newWallet(gw, caller);
    await fund(gw, caller, wallet, 10_000_000);
    for (let i = 0; i < 4; i++) {
      const tenant = await gw.createTenant();
      const priceMinor = 1 + Math.floor(random() * 99_999);
      const bps = Math.floor(random() * 10_001);
      const server = (
        await gw.request('POST', '/v1/mcp-servers', {
          key: tenant.key,
          body: {
            slug: `split-${i}-${Date.now().toString(36)}`,
            name: 'Split',
            upstream_url: upstream.url,
            upstream_auth: MCP_UPSTREAM_AUTH,
            platform_fee_bps: bps,
            tools: [{ tool_name: 'quote', price: minorToPrice(BigInt(priceMinor), 'BRL') }],
          },
        })
      ).body;
      const session = (
        await gw.request('POST', '/v1/sessions', { key: caller.key, body: { servers: [server.slug] } })
      ).body.id;
      const r = await gw.request('POST', `/v1/sessions/${session}/tool-calls`, {
        key: caller.key,
        body: {
          tool: `${server.slug}.quote`,
          arguments: { from: 'A', to: 'B', gateway_payment: { wallet_id: wallet } },
        },
      });
      expect(r.body.status).toBe('success');
      const moved = await gw.db.one(sql.type(
        z.object({ debit: z.bigint(), share: z.bigint(), fee: z.bigint() }),
      )`
        SELECT
          (SELECT -amount_minor FROM wallet_ledger_entries WHERE wallet_id = ${wallet} AND attempt_id = ${r.body.attempt_id} AND kind = 'debit') AS debit,
          coalesce((SELECT sum(amount_minor) FROM wallet_ledger_entries WHERE wallet_id = ${server.payout_wallet_id}), 0)::bigint AS share,
          coalesce((SELECT sum(amount_minor) FROM wallet_ledger_entries WHERE wallet_id = ${server.fee_wallet_id}), 0)::bigint AS fee`);
      expect(moved.debit).toBe(BigInt(priceMinor));
      expect(moved.share + moved.fee).toBe(moved.debit);
      expect(moved.fee).toBe(splitPrice(BigInt(priceMinor), bps).feeMinor);
    }
  });
});
