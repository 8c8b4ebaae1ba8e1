// Inbound TED through HTTP: the bank's notice names only a transfer id; the gateway asks the bank for the
// transfer and credits the consumer's sub-account once, however often the notice repeats, and publishes
// `commerce.ted_in.succeeded` to subscribed endpoints. Forged notices and an unreachable bank credit nothing.
import { sql } from 'slonik';
import { z } from 'zod';
import type { TedMock } from '../providers/mocks/ted-bank';
import { createConsumer } from './support/consents';
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';
import { startReceiver, type Receiver } from './support/receiver';

const NOTICE = '/webhooks/ted/inbound';

describe.each(TEMPORAL_SERVERS)('inbound TED on the %s server', (temporal) => {
  let gw: Gateway;
  let tenant: Tenant;
  let ted: TedMock;
  let receiver: Receiver;
  beforeAll(async () => {
    gw = await startGateway({ temporal });
    tenant = await gw.createTenant();
    ted = gw.mocks.ted as TedMock;
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.stop();
    await gw?.stop();
  });

  async function subAccount(): Promise<{ consumerId: string; walletId: string }> {
    const consumer = await createConsumer(gw, tenant.key);
    const opened = await gw.request('POST', `/v1/consumers/${consumer.id}/sub-account`, { key: tenant.key });
    expect(opened.status).toBe(201);
    return { consumerId: consumer.id, walletId: opened.body.id };
  }
  const balance = async (consumerId: string): Promise<string | undefined> => {
    const read = await gw.request('POST', `/v1/consumers/${consumerId}/sub-account`, { key: tenant.key });
    return read.body.balances.find((b: { currency: string }) => b.currency === 'BRL')?.balance_minor;
  };
  const entries = (walletId: string) =>
    gw.db.any(sql.type(
      z.object({ kind: z.string(), amount_minor: z.bigint(), external_ref: z.string().nullable() }),
    )`
      SELECT kind, amount_minor, external_ref FROM wallet_ledger_entries WHERE wallet_id = ${walletId} ORDER BY id`);
  const tedEvents = () =>
    gw.db.any(sql.type(z.object({ data: z.record(z.unknown()) }))`
      SELECT data FROM events WHERE org_id = ${tenant.orgId} AND type = 'commerce.ted_in.succeeded' ORDER BY id`);

  it('credits the sub-account once for a repeated notice and delivers commerce.ted_in.succeeded', async () => {
    const endpoint = await gw.request('POST', '/v1/webhook-endpoints', {
      key: tenant.key,
      body: { name: 'ted in', event: 'commerce.ted_in.succeeded', webhook_url: `${receiver.url}/ted-in` },
    });
    expect(endpoint.status).toBe(201);
    const { consumerId, walletId } = await subAccount();
    const transfer = ted.receiveInbound({ account: walletId, amountMinor: 125_050n, payerName: 'Loja Azul' });

    // The bank sends its notice four times at once: one credit.
    const answers = await Promise.all(
      [1, 2, 3, 4].map(() => ted.notifyInbound(`${gw.url}${NOTICE}`, transfer.id)),
    );
    expect(answers).toEqual([200, 200, 200, 200]);
    const late = await gw.request('POST', NOTICE, { body: { transfer_id: transfer.id } });
    expect(late.body).toMatchObject({ credited: false, outcome: 'already_credited' });

    expect(await balance(consumerId)).toBe('125050');
    expect(await entries(walletId)).toEqual([
      { kind: 'fund', amount_minor: 125_050n, external_ref: `ted-in:${transfer.id}` },
    ]);
    const events = (await tedEvents()).filter((e) => e.data.provider_transfer_id === transfer.id);
    expect(events).toEqual([
      {
        data: expect.objectContaining({
          consumer_id: consumerId,
          wallet_id: walletId,
          amount_minor: '125050',
          currency: 'BRL',
          payer: expect.objectContaining({ name: 'Loja Azul' }),
        }),
      },
    ]);
    const [delivered] = await receiver.waitFor(1);
    expect(delivered.path).toBe('/ted-in');
    expect(delivered.body).toContain(transfer.id);
  });

  it('credits nothing for a notice the bank does not know, whatever the notice claims', async () => {
    const { consumerId, walletId } = await subAccount();
    const lookupsBefore = ted.inboundLookups().length;
    const forged = await gw.request('POST', NOTICE, {
      body: {
        event: 'TED_IN',
        transfer_id: 'tedin_forged0001',
        amount_minor: '999999',
        destination_account: walletId,
      },
    });
    expect(forged.status).toBe(200);
    expect(forged.body).toEqual({ received: true, credited: false, outcome: 'unknown_transfer' });
    expect(ted.inboundLookups().slice(lookupsBefore)).toEqual(['tedin_forged0001']);
    expect(await balance(consumerId)).toBe('0');
    expect(await entries(walletId)).toEqual([]);

    const malformed = await gw.request('POST', NOTICE, { body: { transfer_id: '../../etc' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('invalid_body');
  });

  it('answers 503 while the bank cannot confirm, and credits when the notice comes again', async () => {
    const { consumerId, walletId } = await subAccount();
    const transfer = ted.receiveInbound({ account: walletId, amountMinor: 700n });
    ted.failInboundLookups(1);
    const refused = await gw.request('POST', NOTICE, { body: { transfer_id: transfer.id } });
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('ted_bank_unavailable');
    expect(await entries(walletId)).toEqual([]);

    const again = await gw.request('POST', NOTICE, { body: { transfer_id: transfer.id } });
    expect(again.body).toEqual({ received: true, credited: true, outcome: 'credited' });
    expect(await balance(consumerId)).toBe('700');
  });

  it('refuses a notice for a frozen sub-account with 409 and credits once it is unfrozen and noticed again', async () => {
    const { consumerId, walletId } = await subAccount();
    const transfer = ted.receiveInbound({ account: walletId, amountMinor: 4_200n });
    expect((await gw.request('POST', `/v1/wallets/${walletId}/freeze`, { key: tenant.key })).status).toBe(
      200,
    );
    const frozen = await gw.request('POST', NOTICE, { body: { transfer_id: transfer.id } });
    expect(frozen.status).toBe(409);
    expect(frozen.body.error.code).toBe('wallet_not_active');
    expect(await entries(walletId)).toEqual([]);

    expect((await gw.request('POST', `/v1/wallets/${walletId}/unfreeze`, { key: tenant.key })).status).toBe(
      200,
    );
    const again = await gw.request('POST', NOTICE, { body: { transfer_id: transfer.id } });
    expect(again.body).toMatchObject({ credited: true });
    expect(await balance(consumerId)).toBe('4200');
  });

  it('leaves a transfer to an account the gateway does not hold uncredited', async () => {
    const transfer = ted.receiveInbound({ account: 'wal_not_ours', amountMinor: 500n });
    const noticed = await gw.request('POST', NOTICE, { body: { transfer_id: transfer.id } });
    expect(noticed.body).toEqual({ received: true, credited: false, outcome: 'unknown_account' });
    const rows = await gw.db.oneFirst(sql.type(z.object({ n: z.number() }))`
      SELECT count(*)::int AS n FROM ted_inbound_transfers WHERE provider_transfer_id = ${transfer.id}`);
    expect(rows).toBe(0);
  });
});
