// Every attempt ends: a wallet execute, a paid tool call or a consumer spend whose workflow breaks before its
// dispatch (here the database refuses a write of its authorization for good) releases whatever it held and
// fails, readable by presenting the attempt again; it is never left `processing`. The provider (or the
// tenant's upstream) is never called. On both Temporal servers.
import { sql } from 'slonik';
import { z } from 'zod';
import { MCP_UPSTREAM_AUTH, type McpUpstreamMock } from '../providers/mocks/mcp-upstream';
import type { PaymentsMock } from '../providers/mocks/payments';
import type { PixPspMock } from '../providers/mocks/pix-psp';
import { pixSpend, readyConsumer } from './support/consumer-spend';
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
    // The same refusal for the attempts named in `broken_attempts`, on the writes the other families'
    // authorizations make: a paid call's charge row and a consumer spend's mandate cap reservation.
    await gw.db.query(sql.unsafe`CREATE TABLE broken_attempts (attempt_id text PRIMARY KEY)`);
    await gw.db.query(sql.unsafe`
      CREATE FUNCTION refuse_broken_attempts() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM broken_attempts WHERE attempt_id = NEW.attempt_id) THEN
          RAISE EXCEPTION 'injected fault' USING ERRCODE = '23514', CONSTRAINT = 'injected_fault';
        END IF;
        RETURN NEW;
      END $$`);
    await gw.db.query(sql.unsafe`
      CREATE TRIGGER refuse_broken_charges BEFORE INSERT ON tool_server_charges FOR EACH ROW EXECUTE FUNCTION refuse_broken_attempts()`);
    await gw.db.query(sql.unsafe`
      CREATE TRIGGER refuse_broken_reservations BEFORE INSERT ON mandate_cap_reservations FOR EACH ROW EXECUTE FUNCTION refuse_broken_attempts()`);
  });
  afterAll(async () => {
    await gw?.stop();
  });

  const breakAttempt = (attemptId: string) =>
    gw.db.query(sql.unsafe`INSERT INTO broken_attempts (attempt_id) VALUES (${attemptId})`);
  const openHolds = (attemptId: string) =>
    gw.db.oneFirst(sql.type(z.object({ n: z.number() }))`
      SELECT count(*)::int AS n FROM wallet_holds WHERE attempt_id = ${attemptId} AND status = 'open'`);

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

  it('fails a paid tool call that broke before its upstream call, holding nothing, and answers the same when presented again', async () => {
    const upstream = gw.mocks.mcp_upstream as McpUpstreamMock;
    const tenant = await gw.createTenant();
    const created = await gw.request('POST', '/v1/mcp-servers', {
      key: tenant.key,
      body: {
        slug: `broken-${server}`,
        name: 'Broken charges',
        upstream_url: upstream.url,
        upstream_auth: MCP_UPSTREAM_AUTH,
        platform_fee_bps: 1500,
        tools: [{ tool_name: 'quote', price: '0.25' }],
      },
    });
    expect(created.status).toBe(201);
    const slug = created.body.slug as string;
    const session = (await gw.request('POST', '/v1/sessions', { key: t.key, body: { servers: [slug] } })).body
      .id as string;
    const wallet = await newWallet(gw, t);
    await fund(gw, t, wallet, 1_000);
    const attemptId = `att-tool-broken-${server}-${Date.now()}`;
    await breakAttempt(attemptId);
    const quotesBefore = upstream.calls.quote ?? 0;
    const call = () =>
      gw.request('POST', `/v1/sessions/${session}/tool-calls`, {
        key: t.key,
        body: {
          tool: `${slug}.quote`,
          arguments: {
            from: 'GRU',
            to: 'GIG',
            gateway_payment: { wallet_id: wallet, attempt_id: attemptId },
          },
        },
      });
    let first = await call();
    for (let i = 0; i < 10 && first.status === 409; i += 1) first = await call();
    expect(first.body).toMatchObject({ status: 'error', error_code: 'attempt_failed' });
    const row = await gw.db.one(
      sql.type(z.object({ status: z.string(), response_text: z.string().nullable() }))`
        SELECT status, response_text FROM spend_attempts WHERE org_id = ${t.orgId} AND attempt_id = ${attemptId}`,
    );
    expect(row.status).toBe('failed');
    expect(JSON.parse(row.response_text!)).toMatchObject({
      status: 'failed',
      failure: { code: 'attempt_failed' },
    });
    expect(await openHolds(attemptId)).toBe(0);
    const again = await call();
    expect([again.status, again.text]).toEqual([first.status, first.text]);
    expect(upstream.calls.quote ?? 0).toBe(quotesBefore);
    const balances = (await gw.request('GET', `/v1/wallets/${wallet}`, { key: t.key })).body.balances[0];
    expect(balances).toMatchObject({ balance_minor: '1000', available_minor: '1000' });
    await expectBalanced(gw, wallet);
  });

  it('fails a consumer spend that broke before its dispatch, holding and reserving nothing, and answers the same when presented again', async () => {
    const psp = gw.mocks.pix_psp as unknown as PixPspMock;
    const c = await readyConsumer(gw, t, { fundMinor: 10_000 });
    const body = pixSpend(c, { amount_minor: 2_000 });
    await breakAttempt(body.attempt_id);
    const execute = () => gw.request('POST', '/v1/consumer-payments/execute', { key: t.key, body });
    let first = await execute();
    for (let i = 0; i < 10 && first.status === 409; i += 1) first = await execute();
    expect([first.status, first.body.error?.code, first.body.idempotent_replay]).toEqual([
      500,
      'attempt_failed',
      false,
    ]);
    const row = await gw.db.one(
      sql.type(z.object({ status: z.string(), holds_money: z.boolean() }))`
        SELECT status, holds_money FROM consumer_spend_attempts WHERE org_id = ${t.orgId} AND attempt_id = ${body.attempt_id}`,
    );
    expect(row).toEqual({ status: 'failed', holds_money: false });
    expect(await openHolds(body.attempt_id)).toBe(0);
    const reserved = await gw.db.oneFirst(sql.type(z.object({ n: z.number() }))`
      SELECT count(*)::int AS n FROM mandate_cap_reservations WHERE attempt_id = ${body.attempt_id} AND status = 'held'`);
    expect(reserved).toBe(0);
    const again = await execute();
    expect([again.status, again.headers.get('idempotent-replayed')]).toEqual([500, 'true']);
    expect(again.body).toEqual({ ...first.body, idempotent_replay: true });
    expect(psp.requests().filter((r) => r.reference === body.attempt_id)).toHaveLength(0);
    const balances = (await gw.request('GET', `/v1/wallets/${c.walletId}`, { key: t.key })).body.balances[0];
    expect(balances).toMatchObject({ balance_minor: '10000', available_minor: '10000' });
    await expectBalanced(gw, c.walletId);
  });
});
