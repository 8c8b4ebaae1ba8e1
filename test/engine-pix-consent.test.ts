// Pix under a `pix-consent` mandate: the money is pulled through the consumer's consented funding source at
// the PSP, so the consumer's ledger sub-account need not (and does not) hold it. The ledger still records
// every pull as a pass-through on the project's clearing account (in and straight out, netting to zero),
// the mandate's caps count the attempt from the moment it is authorized, and a PSP refusal (the funding
// source cannot pay) is psp_refused with the caps given back. TED keeps debiting the consumer's own
// sub-account. On both Temporal servers.
import { sql } from 'slonik';
import { z } from 'zod';
import type { PixPspMock } from '../providers/mocks/pix-psp';
import { consentConsumer, newAttempt, pixSpend, TED_DESTINATION, tedSpend } from './support/consumer-spend';
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';

const entryRow = z.object({
  wallet_id: z.string(),
  kind: z.string(),
  amount_minor: z.bigint(),
  external_ref: z.string().nullable(),
});

describe.each(TEMPORAL_SERVERS)('a Pix spend under a pix-consent mandate (%s server)', (server) => {
  let gw: Gateway;
  let tenant: Tenant;
  let psp: PixPspMock;
  beforeAll(async () => {
    gw = await startGateway({ temporal: server });
    tenant = await gw.createTenant();
    psp = gw.mocks.pix_psp as PixPspMock;
  });
  afterAll(async () => {
    await gw?.stop();
  });

  const execute = (body: unknown) =>
    gw.request('POST', '/v1/consumer-payments/execute', { key: tenant.key, body });
  const balance = async (walletId: string) =>
    (await gw.request('GET', `/v1/wallets/${walletId}`, { key: tenant.key })).body.balances[0];
  const entries = (attemptId: string) =>
    gw.db.any(sql.type(entryRow)`
    SELECT wallet_id, kind, amount_minor, external_ref FROM wallet_ledger_entries WHERE attempt_id = ${attemptId} ORDER BY id`);

  it("pulls through the consumer's consented funding source with an empty sub-account, and records the pull as a pass-through on the clearing account", async () => {
    const c = await consentConsumer(gw, tenant);
    const body = pixSpend(c, { amount_minor: 4_000 });
    const paid = await execute(body);
    expect([paid.status, paid.body.status]).toEqual([200, 'completed']);
    const payment = psp.payments().find((p) => p.reference === body.attempt_id)!;
    expect(payment).toMatchObject({ amount: '40.00', funding_source_id: c.fundingSourceId });
    // Nothing moved on the consumer's own sub-account.
    expect(await balance(c.walletId)).toMatchObject({ balance_minor: '0', available_minor: '0' });
    const posted = await entries(body.attempt_id);
    expect(posted.map((e) => [e.kind, e.amount_minor])).toEqual([
      ['fund', 4_000n],
      ['debit', -4_000n],
    ]);
    expect(new Set(posted.map((e) => e.wallet_id)).size).toBe(1);
    expect(posted[0].wallet_id).not.toBe(c.walletId);
    expect(posted[0].external_ref).toBe(`pix-consent:${payment.id}`);
    expect(await balance(posted[0].wallet_id)).toMatchObject({ balance_minor: '0', available_minor: '0' });
    expect(paid.body.audit).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          step: 'hold',
          detail: expect.stringContaining('consented funding source'),
        }),
      ]),
    );
  });

  it("counts each pull against the mandate's caps, so a pull past the cumulative cap is refused before the PSP is asked", async () => {
    const c = await consentConsumer(gw, tenant, { cap_minor: 10_000, per_tx_cap_minor: 8_000 });
    expect((await execute(pixSpend(c, { amount_minor: 7_000 }))).status).toBe(200);
    const over = pixSpend(c, { amount_minor: 4_000 });
    const refused = await execute(over);
    expect([refused.status, refused.body.error.code]).toEqual([422, 'cumulative_cap_exceeded']);
    expect(psp.requests().some((r) => r.reference === over.attempt_id)).toBe(false);
    expect((await execute(pixSpend(c, { amount_minor: 3_000 }))).status).toBe(200);
  });

  it('answers psp_refused when the funding source cannot pay, posts nothing and gives the caps back', async () => {
    const c = await consentConsumer(gw, tenant, { cap_minor: 10_000, per_tx_cap_minor: 10_000 });
    psp.setFundingLimit(c.fundingSourceId, 5_000);
    const body = pixSpend(c, { amount_minor: 6_000 });
    const refused = await execute(body);
    expect([refused.status, refused.body.error.code]).toEqual([422, 'psp_refused']);
    expect(await entries(body.attempt_id)).toEqual([]);
    psp.setFundingLimit(c.fundingSourceId, null);
    // The refused 6,000 no longer counts: 10,000 fits the cap.
    const full = await execute(pixSpend(c, { amount_minor: 10_000, attempt_id: newAttempt() }));
    expect([full.status, full.body.status]).toEqual([200, 'completed']);
  });

  it("still sends TED from the consumer's own sub-account, which must hold the money", async () => {
    const c = await consentConsumer(gw, tenant, { withdrawal_allowlist: [TED_DESTINATION] });
    const refused = await execute(tedSpend(c, { amount_minor: 1_000 }));
    expect([refused.status, refused.body.error.code]).toEqual([422, 'insufficient_funds']);
    const funded = await gw.request('POST', '/v1/ledger-entries', {
      key: tenant.key,
      body: {
        wallet_id: c.walletId,
        org_id: tenant.orgId,
        currency: 'BRL',
        amount_minor: '5000',
        kind: 'fund',
      },
    });
    expect(funded.status).toBe(201);
    const body = tedSpend(c, { amount_minor: 1_000 });
    const sent = await execute(body);
    expect([sent.status, sent.body.status]).toEqual([200, 'completed']);
    expect(await balance(c.walletId)).toMatchObject({ balance_minor: '4000' });
    expect((await entries(body.attempt_id)).map((e) => [e.wallet_id, e.kind])).toEqual([
      [c.walletId, 'hold'],
      [c.walletId, 'debit'],
    ]);
  });
});
