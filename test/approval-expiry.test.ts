// Approval expiry on Temporal's time-skipping clock, in its own gateway: the skipped clock is shared by
// every workflow of a test server, so this file keeps it to itself.
import type { PaymentsMock } from '../providers/mocks/payments';
import { startGateway, type Gateway } from './support/harness';
import { fund, newWallet } from './support/money';

let gw: Gateway;
let mock: PaymentsMock;
beforeAll(async () => {
  gw = await startGateway();
  mock = gw.mocks.payments as PaymentsMock;
});
afterAll(async () => {
  await gw?.stop();
});

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 100; i += 1) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('expiry', () => {
  it('expires on its durable timer, and a decision after expiry is refused with 410', async () => {
    const t = await gw.createTenant();
    await gw.request('PATCH', `/v1/projects/${t.projectId}/settings`, {
      key: t.key,
      body: { approval_ttl_seconds: 60 },
    });
    await gw.request('POST', '/v1/policies', {
      key: t.key,
      body: { name: 'all spends', type: 'approval-required' },
    });
    const wallet = await newWallet(gw, t);
    await fund(gw, t, wallet, 100_000);
    const id = `exp-${Date.now()}`;
    const held = await gw.request('POST', `/v1/wallets/${wallet}/execute`, {
      key: t.key,
      body: {
        amount: 120,
        currency: 'BRL',
        recipient: 'vendor-9',
        description: 'Server rack',
        mandate_id: 'mdt_1',
        attempt_id: id,
      },
    });
    expect(held.status).toBe(403);
    expect(Date.parse(held.body.expires_at) - Date.now()).toBeLessThan(61_000);
    await gw.env.sleep('61 seconds');
    const expired = await until(
      async () =>
        (await gw.request('GET', `/v1/approvals/${held.body.approval_id}/status`, { key: t.key })).body,
      (s) => s.approval_status !== 'pending',
      'the expiry',
    );
    expect(expired.approval_status).toBe('expired');
    const late = await gw.operator('POST', `/v1/orgs/${t.orgId}/approvals/${held.body.approval_id}/decide`, {
      user: 'alice',
      body: { decision: 'approve' },
    });
    expect(late.status).toBe(410);
    expect(late.body.error.code).toBe('approval_expired');
    expect(mock.requests().filter((q) => q.reference === id)).toHaveLength(0);
    const wallets = await gw.request('GET', `/v1/wallets/${wallet}`, { key: t.key });
    expect(wallets.body.balances[0]).toMatchObject({ balance_minor: '100000', available_minor: '100000' });
  });
});
