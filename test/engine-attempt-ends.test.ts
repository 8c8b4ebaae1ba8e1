// Every attempt ends: a wallet execute whose workflow breaks before its dispatch (here the database refuses
// its hold for good) releases whatever it held and fails, readable by presenting the attempt again; it is
// never left `processing`. The provider is never called. On both Temporal servers.
import { sql } from 'slonik';
import { z } from 'zod';
import type { PaymentsMock } from '../providers/mocks/payments';
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';
import { expectBalanced, fund, newWallet } from './support/money';

describe.each(TEMPORAL_SERVERS)('an attempt whose workflow breaks (%s server)', (server) => {
  let gw: Gateway;
  let t: Tenant;
  let mock: PaymentsMock;
  beforeAll(async () => {
    gw = await startGateway({ temporal: server });
    mock = gw.mocks.payments as PaymentsMock;
    t = await gw.createTenant();
    // An injected fault: the hold of any attempt named `att-broken-…` trips a CHECK, a refusal no retry cures.
    await gw.db.query(sql.unsafe`
      CREATE FUNCTION refuse_broken_holds() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.attempt_id LIKE 'att-broken-%' THEN
          RAISE EXCEPTION 'injected fault' USING ERRCODE = '23514', CONSTRAINT = 'injected_fault';
        END IF;
        RETURN NEW;
      END $$`);
    await gw.db.query(sql.unsafe`
      CREATE TRIGGER refuse_broken_holds BEFORE INSERT ON wallet_holds FOR EACH ROW EXECUTE FUNCTION refuse_broken_holds()`);
  });
  afterAll(async () => {
    await gw?.stop();
  });

  it('fails an attempt that broke before its dispatch, holding nothing, and answers the same when presented again', async () => {
    const wallet = await newWallet(gw, t);
    await fund(gw, t, wallet, 5_000);
    const attemptId = `att-broken-${server}-${Date.now()}`;
    const body = {
      amount: 12.34,
      currency: 'BRL',
      recipient: 'merchant-42',
      description: 'Office supplies',
      mandate_id: 'mdt_test',
      attempt_id: attemptId,
    };
    const execute = () => gw.request('POST', `/v1/wallets/${wallet}/execute`, { key: t.key, body });
    let first = await execute();
    for (let i = 0; i < 10 && first.status === 409; i += 1) first = await execute();
    expect([first.status, first.body.status, first.body.failure?.code]).toEqual([
      200,
      'failed',
      'attempt_failed',
    ]);
    const row = await gw.db.one(
      sql.type(z.object({ status: z.string() }))`
        SELECT status FROM spend_attempts WHERE org_id = ${t.orgId} AND attempt_id = ${attemptId}`,
    );
    expect(row.status).toBe('failed');
    const again = await execute();
    expect([again.status, again.headers.get('idempotent-replayed'), again.text]).toEqual([
      200,
      'true',
      first.text,
    ]);
    expect(mock.payments().filter((p) => p.reference === attemptId)).toHaveLength(0);
    const balances = (await gw.request('GET', `/v1/wallets/${wallet}`, { key: t.key })).body.balances[0];
    expect(balances).toMatchObject({ balance_minor: '5000', available_minor: '5000' });
    await expectBalanced(gw, wallet);
  });
});
