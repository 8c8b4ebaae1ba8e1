// Topping up a BRL wallet by Pix, through HTTP, for a live project (where no key may post `fund`) and a
// test one: the gateway opens a charge at the PSP and answers its BR Code; the PSP's notice makes the
// workflow ask the PSP, which credits the wallet once (external_ref `pix:<endToEndId>`); duplicated,
// replayed and forged notices credit nothing more, and a charge that lapses credits nothing at all.
import { sql } from 'slonik';
import { z } from 'zod';
import { hasError, isDynamicPix, parsePix } from 'pix-utils';
import { creditPixTopup } from '../domain/topups/credit';
import type { PixPspMock } from '../providers/mocks/pix-psp';
import { workflowIds } from '../contracts/workflow-ids';
import { waitFor } from './support/consents';
import { replayFinished, scheduledActivities } from './support/histories';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { newWallet } from './support/money';

const NOTICE = '/webhooks/pix/topups';

describe.each(['live', 'test'] as const)('Pix top-ups of a %s project', (environment) => {
  let gw: Gateway;
  let acme: Tenant;
  let psp: PixPspMock;

  beforeAll(async () => {
    gw = await startGateway({ temporal: 'time-skipping' });
    acme = await gw.createTenant({ name: 'Acme', environment });
    psp = gw.mocks.pix_psp as PixPspMock;
  });
  afterAll(async () => gw?.stop());

  const topUp = (walletId: string, body: Record<string, unknown>, tenant = acme) =>
    gw.request('POST', `/v1/wallets/${walletId}/topups`, { key: tenant.key, body });
  const read = async (walletId: string, id: string) =>
    (await gw.request('GET', `/v1/wallets/${walletId}/topups/${id}`, { key: acme.key })).body;
  const balance = async (walletId: string): Promise<string> =>
    (await gw.request('GET', `/v1/wallets/${walletId}`, { key: acme.key })).body.balances[0].balance_minor;
  const entries = (walletId: string) =>
    gw.db.any(sql.type(z.object({ kind: z.string(), amount_minor: z.bigint(), external_ref: z.string() }))`
      SELECT kind, amount_minor, external_ref FROM wallet_ledger_entries WHERE wallet_id = ${walletId} ORDER BY id`);
  const events = (topupId: string) =>
    gw.db.anyFirst(sql.type(z.object({ type: z.string() }))`
      SELECT type FROM events WHERE org_id = ${acme.orgId} AND data->>'topup_id' = ${topupId} ORDER BY id`);
  const completedActivities = async (workflowId: string) =>
    ((await gw.env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? []).filter(
      (e) => e.activityTaskCompletedEventAttributes,
    ).length;

  it('answers a BR Code for the charge, credits the wallet once when the PSP confirms it, and publishes both events', async () => {
    const wallet = await newWallet(gw, acme);
    const opened = await topUp(wallet, { method: 'pix', amount_minor: '2590' });
    expect(opened.status).toBe(201);
    expect(opened.body).toMatchObject({
      object: 'wallet_topup',
      id: expect.stringMatching(/^wtu_[0-9a-z]{26}$/),
      wallet_id: wallet,
      method: 'pix',
      currency: 'BRL',
      amount_minor: '2590',
      status: 'pending',
      replayed: false,
      external_ref: null,
      expires_at: expect.any(String),
      pix: { txid: expect.stringMatching(/^[0-9a-z]{26}$/), qr_svg: expect.stringContaining('<svg') },
    });
    const { txid, br_code: brCode } = opened.body.pix;
    const parsed = parsePix(brCode);
    if (hasError(parsed) || !isDynamicPix(parsed)) throw new Error(`not a dynamic BR Code: ${brCode}`);
    expect(psp.cobs.get(txid)).toMatchObject({
      status: 'ATIVA',
      chave: 'topups@gateway.local',
      valor: { original: '25.90' },
      pixCopiaECola: brCode,
    });

    const paid = await psp.cobs.pay(txid);
    expect(paid.webhookStatus).toBe(200);
    await waitFor(async () => (await read(wallet, opened.body.id)).status === 'credited');
    const endToEndId = psp.cobs.get(txid)!.pix![0].endToEndId;
    expect(await read(wallet, opened.body.id)).toMatchObject({
      status: 'credited',
      amount_minor: '2590',
      external_ref: `pix:${endToEndId}`,
      ledger_entry_id: expect.stringMatching(/^\d+$/),
      credited_at: expect.any(String),
      pix: { txid, end_to_end_id: endToEndId },
    });
    expect(await balance(wallet)).toBe('2590');
    expect(await entries(wallet)).toEqual([
      { kind: 'fund', amount_minor: 2590n, external_ref: `pix:${endToEndId}` },
    ]);
    expect(await events(opened.body.id)).toEqual(['wallet.topup.created', 'wallet.topup.credited']);

    const { history, result } = await replayFinished(
      gw,
      workflowIds.walletTopup(acme.orgId, opened.body.id),
      `wallet-topup-credited.${environment}`,
    );
    expect(result).toBe('credited');
    expect(scheduledActivities(history)).toEqual([
      'openTopupCharge',
      'topupChargeState',
      'creditPixTopupActivity',
    ]);
    const listed = await gw.request('GET', `/v1/wallets/${wallet}/topups`, { key: acme.key });
    expect(listed.body).toMatchObject({
      has_more: false,
      topups: [{ id: opened.body.id, status: 'credited' }],
    });
  });

  it('credits nothing more for a duplicated notice, a replayed one, or a retried credit of the same payment', async () => {
    const wallet = await newWallet(gw, acme);
    const opened = await topUp(wallet, { method: 'pix', amount_minor: '1000' });
    const { txid } = opened.body.pix;
    // The PSP's notice arrives three times at once.
    const notice = { pix: [{ txid }] };
    const [paid] = await Promise.all([
      psp.cobs.pay(txid),
      gw.request('POST', NOTICE, { body: notice }),
      gw.request('POST', NOTICE, { body: notice }),
    ]);
    expect(paid.webhookStatus).toBe(200);
    await gw.env.client.workflow.getHandle(workflowIds.walletTopup(acme.orgId, opened.body.id)).result();
    // Replayed once the workflow is done: nothing is nudged, nothing is credited.
    const replayed = await gw.request('POST', NOTICE, { body: notice });
    expect([replayed.status, replayed.body.noted]).toEqual([200, 0]);
    // An activity retried after a crash past its commit finds its own earlier write.
    const endToEndId = psp.cobs.get(txid)!.pix![0].endToEndId;
    const retried = await creditPixTopup(gw.db, opened.body.id, { endToEndId, amountMinor: 1000n });
    expect(retried.outcome).toBe('already_credited');
    expect(await balance(wallet)).toBe('1000');
    expect(await entries(wallet)).toEqual([
      { kind: 'fund', amount_minor: 1000n, external_ref: `pix:${endToEndId}` },
    ]);
    expect(await events(opened.body.id)).toEqual(['wallet.topup.created', 'wallet.topup.credited']);
  });

  it('credits nothing on a forged notice the PSP does not back, and the real payment later once', async () => {
    const wallet = await newWallet(gw, acme);
    const opened = await topUp(wallet, { method: 'pix', amount_minor: '5000' });
    const { txid } = opened.body.pix;
    const forged = await gw.request('POST', NOTICE, {
      body: {
        pix: [
          { txid, valor: '50.00', endToEndId: 'E00000000forged' },
          { txid: 'nosuchtxid000000000000000a' },
        ],
      },
    });
    expect([forged.status, forged.body]).toEqual([200, { received: true, noted: 1 }]);
    const workflowId = workflowIds.walletTopup(acme.orgId, opened.body.id);
    // Once the workflow has asked the PSP (its second activity), nothing was credited.
    await waitFor(async () => (await completedActivities(workflowId)) >= 2);
    expect((await read(wallet, opened.body.id)).status).toBe('pending');
    expect(await balance(wallet)).toBe('0');
    expect(await entries(wallet)).toEqual([]);

    await psp.cobs.pay(txid);
    await waitFor(async () => (await read(wallet, opened.body.id)).status === 'credited');
    const endToEndId = psp.cobs.get(txid)!.pix![0].endToEndId;
    expect(await entries(wallet)).toEqual([
      { kind: 'fund', amount_minor: 5000n, external_ref: `pix:${endToEndId}` },
    ]);
  });

  it('ends a top-up whose charge lapsed unpaid as expired, with nothing credited', async () => {
    const wallet = await newWallet(gw, acme);
    const opened = await topUp(wallet, { method: 'pix', amount_minor: '700' });
    // Waiting on the result lets the test server skip through the charge's lifetime.
    const outcome = await gw.env.client.workflow
      .getHandle(workflowIds.walletTopup(acme.orgId, opened.body.id))
      .result();
    expect(outcome).toBe('expired');
    expect(await read(wallet, opened.body.id)).toMatchObject({
      status: 'expired',
      failure_reason: 'not_paid_in_time',
      external_ref: null,
      ledger_entry_id: null,
    });
    expect(await balance(wallet)).toBe('0');
    expect(await entries(wallet)).toEqual([]);
    expect(await events(opened.body.id)).toEqual(['wallet.topup.created', 'wallet.topup.expired']);
  });

  it('answers a retried create under the same attempt_id with the first top-up, and refuses another request under it', async () => {
    const wallet = await newWallet(gw, acme);
    const before = psp.cobs.creates().length;
    const body = { method: 'pix', amount_minor: '1234', attempt_id: 'topup-2026-001' };
    const first = await topUp(wallet, body);
    const again = await topUp(wallet, body);
    expect([first.status, again.status, again.body.replayed]).toEqual([201, 200, true]);
    expect(again.body.id).toBe(first.body.id);
    expect(again.body.pix.br_code).toBe(first.body.pix.br_code);
    expect(psp.cobs.creates().length).toBe(before + 1);
    const other = await topUp(wallet, { ...body, amount_minor: '9999' });
    expect([other.status, other.body.error.code, other.body.error.details.topup_id]).toEqual([
      409,
      'attempt_id_conflict',
      first.body.id,
    ]);
  });

  it("refuses a wallet of another currency, state or project, and hides other projects' top-ups", async () => {
    const usdc = await newWallet(gw, acme, { currency: 'USDC' });
    const wrong = await topUp(usdc, { method: 'pix', amount_minor: '100' });
    expect([wrong.status, wrong.body.error.code]).toEqual([422, 'topup_method_unsupported']);
    const frozen = await newWallet(gw, acme);
    await gw.request('POST', `/v1/wallets/${frozen}/freeze`, { key: acme.key });
    const cold = await topUp(frozen, { method: 'pix', amount_minor: '100' });
    expect([cold.status, cold.body.error.code]).toEqual([409, 'wallet_not_active']);
    const bad = await topUp(frozen, { method: 'pix', amount_minor: '0' });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'invalid_body']);

    const wallet = await newWallet(gw, acme);
    const mine = await topUp(wallet, { method: 'pix', amount_minor: '100' });
    const other = await gw.createTenant({ name: 'Other', environment });
    const foreign = await topUp(wallet, { method: 'pix', amount_minor: '100' }, other);
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'not_found']);
    for (const path of [`/v1/wallets/${wallet}/topups`, `/v1/wallets/${wallet}/topups/${mine.body.id}`]) {
      const hidden = await gw.request('GET', path, { key: other.key });
      expect([hidden.status, hidden.body.error.code]).toEqual([404, 'not_found']);
    }
  });

  it("shows the project's top-ups on the operator console", async () => {
    const wallet = await newWallet(gw, acme);
    const opened = await topUp(wallet, { method: 'pix', amount_minor: '4321' });
    const login = await gw.request('POST', '/console/login', {
      raw: new URLSearchParams({ operator: 'bob', token: gw.serviceToken }).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: gw.url },
    });
    const cookie = login.headers.get('set-cookie')!.split(';')[0];
    const page = await gw.request('GET', `/console?org=${acme.orgId}`, { headers: { Cookie: cookie } });
    expect(page.status).toBe(200);
    const row = new RegExp(`<tr id="topup-${opened.body.id}"[\\s\\S]*?</tr>`).exec(page.text)?.[0];
    expect(row).toContain('43.21 BRL');
    expect(row).toContain(workflowIds.walletTopup(acme.orgId, opened.body.id));
  });
});
