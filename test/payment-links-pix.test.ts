// Paying a link over Pix, through HTTP, on both Temporal servers: a buyer opens a payment (reserving a
// use), gets a dynamic charge's BR Code, pays it at the PSP, and the PSP's notice settles it; the limits
// hold when buyers race, and a notice the PSP does not back settles nothing.
import { sql } from 'slonik';
import { z } from 'zod';
import { hasError, isDynamicPix, parsePix } from 'pix-utils';
import { computeCRC } from 'pix-utils/dist/main/crc';
import { crc16Hex } from '../domain/pix/crc16';
import { readTlv } from '../domain/pix/emv-tlv';
import type { PixPspMock } from '../providers/mocks/pix-psp';
import { workflowIds } from '../contracts/workflow-ids';
import { waitFor } from './support/consents';
import { replayFinished, scheduledActivities } from './support/histories';
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';

describe.each(TEMPORAL_SERVERS)('payment links over Pix (%s Temporal)', (temporal) => {
  let gw: Gateway;
  let acme: Tenant;
  let psp: PixPspMock;

  beforeAll(async () => {
    gw = await startGateway({ temporal });
    acme = await gw.createTenant({ name: 'Acme' });
    psp = gw.mocks.pix_psp as PixPspMock;
  });
  afterAll(async () => gw?.stop());

  const newLink = async (over: Record<string, unknown> = {}) => {
    const created = await gw.request('POST', '/v1/payment-links', {
      key: acme.key,
      body: {
        title: 'Curso de Pix',
        accepts: [{ rail: 'pix', amount: '25.90', currency: 'BRL', pix: { key: 'loja@acme.test' } }],
        ...over,
      },
    });
    expect(created.status).toBe(201);
    return created.body as { id: string; slug: string };
  };
  const open = (slug: string) => gw.request('POST', `/pay/${slug}/payments`, { body: { rail: 'pix' } });
  const status = async (slug: string, id: string) =>
    (await gw.request('GET', `/pay/${slug}/payments/${id}`)).body.status as string;
  const link = async (id: string) =>
    (await gw.request('GET', `/v1/payment-links/${id}`, { key: acme.key })).body;
  const eventsOf = (type: string, paymentId: string) =>
    gw.db.any(sql.type(z.object({ data: z.record(z.unknown()) }))`
    SELECT data FROM events WHERE org_id = ${acme.orgId} AND type = ${type} AND data->>'payment_id' = ${paymentId}`);

  it('opens a dynamic Pix charge whose BR Code pix-utils reads, with the amount and a correct CRC16', async () => {
    const { slug } = await newLink();
    const opened = await open(slug);
    expect(opened.status).toBe(201);
    expect(opened.body).toMatchObject({
      status: 'pending',
      rail: 'pix',
      currency: 'BRL',
      amount_minor: '2590',
      pix: { txid: expect.stringMatching(/^[0-9A-Za-z]{26,35}$/) },
    });
    const brCode: string = opened.body.pix.br_code;
    expect(brCode.slice(-4)).toBe(crc16Hex(brCode.slice(0, -4)));
    const parsed = parsePix(brCode);
    if (hasError(parsed) || !isDynamicPix(parsed))
      throw new Error(`pix-utils refused the BR Code: ${JSON.stringify(parsed)}`);
    expect(parsed.url).toBe(psp.cobs.get(opened.body.pix.txid)!.location);
    expect([parsed.merchantName, parsed.merchantCity]).toEqual(['LOJA MOCK', 'SAO PAULO']);
    // The reference implementation's CRC16 over the same bytes is ours.
    expect(computeCRC(brCode.slice(0, -4))).toBe(brCode.slice(-4));
    const fields = readTlv(brCode);
    expect(fields.ok && fields.fields.find((f) => f.id === '54')?.value).toBe('25.90');
    expect(psp.cobs.get(opened.body.pix.txid)).toMatchObject({
      status: 'ATIVA',
      chave: 'loja@acme.test',
      valor: { original: '25.90' },
      pixCopiaECola: brCode,
    });
  });

  it('settles the payment when the PSP notifies a paid charge, counts the use and publishes the event', async () => {
    const { id, slug } = await newLink();
    const opened = await open(slug);
    const paid = await psp.cobs.pay(opened.body.pix.txid);
    expect(paid.webhookStatus).toBe(200);
    await waitFor(async () => (await status(slug, opened.body.payment_id)) === 'succeeded');
    expect(await link(id)).toMatchObject({ use_count: 1, status: 'active' });
    const events = await eventsOf('payment_link.payment_succeeded', opened.body.payment_id);
    expect(events.map((e) => e.data)).toEqual([
      expect.objectContaining({ link_id: id, rail: 'pix', amount_minor: '2590', use_count: 1 }),
    ]);
    // The workflow's history replays on the current bundle (no determinism error) and shows its path.
    const { history, result } = await replayFinished(
      gw,
      workflowIds.linkPayment(id, opened.body.payment_id),
      `link-payment-succeeded.${temporal}`,
    );
    expect(result).toBe('succeeded');
    expect(scheduledActivities(history)).toEqual([
      'openLinkCharge',
      'linkChargeState',
      'settleLinkPaymentActivity',
    ]);
  });

  it('settles nothing on a notice the PSP does not back (the gateway asks the PSP)', async () => {
    const { id, slug } = await newLink();
    const opened = await open(slug);
    const forged = await gw.request('POST', '/webhooks/pix/link-payments', {
      body: { pix: [{ txid: opened.body.pix.txid, valor: '25.90', endToEndId: 'Eforged' }] },
    });
    expect([forged.status, forged.body.noted]).toEqual([200, 1]);
    // Once the workflow has asked the PSP (its second activity, after opening the charge), nothing settled.
    const history = async () =>
      (
        await gw.env.client.workflow
          .getHandle(workflowIds.linkPayment(id, opened.body.payment_id))
          .fetchHistory()
      ).events ?? [];
    await waitFor(
      async () => (await history()).filter((e) => e.activityTaskCompletedEventAttributes).length >= 2,
    );
    expect(await status(slug, opened.body.payment_id)).toBe('pending');
    expect((await link(id)).use_count).toBe(0);
    // The workflow asked the PSP and found the charge still open; paying it now settles it for real.
    await psp.cobs.pay(opened.body.pix.txid);
    await waitFor(async () => (await status(slug, opened.body.payment_id)) === 'succeeded');
    expect(
      (await eventsOf('payment_link.payment_succeeded', opened.body.payment_id)).map(
        (e) => e.data.provider_ref,
      ),
    ).toEqual([psp.cobs.get(opened.body.pix.txid)!.pix![0].endToEndId]);
    expect((await link(id)).use_count).toBe(1);
  });

  it('lets exactly 3 of 50 racing buyers reserve a max_uses: 3 link, settles those 3 and closes it as paid', async () => {
    const { id, slug } = await newLink({ max_uses: 3 });
    const attempts = await Promise.all(Array.from({ length: 50 }, () => open(slug)));
    const won = attempts.filter((a) => a.status === 201);
    const lost = attempts.filter((a) => a.status !== 201);
    expect(won).toHaveLength(3);
    expect(lost.map((a) => [a.status, a.body.error.code, a.body.error.details.reason])).toEqual(
      Array(47).fill([409, 'payment_link_not_payable', 'max_uses_reached']),
    );
    // Only the three winners reached the PSP: the refused buyers moved nothing.
    expect(psp.cobs.all().filter((cob) => won.some((w) => w.body.pix.txid === cob.txid))).toHaveLength(3);
    for (const w of won) await psp.cobs.pay(w.body.pix.txid);
    await waitFor(async () => (await link(id)).use_count === 3);
    expect(await link(id)).toMatchObject({ use_count: 3, status: 'paid' });
    const late = await open(slug);
    expect([late.status, late.body.error.details.reason]).toEqual([409, 'paid']);
  });

  it('closes a one_time link after its payment, and refuses a second buyer while the first is paying', async () => {
    const { id, slug } = await newLink({ one_time: true });
    const first = await open(slug);
    expect(first.status).toBe(201);
    const second = await open(slug);
    expect([second.status, second.body.error.details.reason]).toEqual([409, 'max_uses_reached']);
    await psp.cobs.pay(first.body.pix.txid);
    await waitFor(async () => (await link(id)).status === 'paid');
    expect((await open(slug)).body.error.details.reason).toBe('paid');
  });

  it('refuses a paused, an expired, a deleted and an unknown link before any charge is made', async () => {
    const paused = await newLink();
    await gw.request('PATCH', `/v1/payment-links/${paused.id}`, { key: acme.key, body: { active: false } });
    const expiring = await newLink({ expires_at: new Date(Date.now() + 60_000).toISOString() });
    await gw.db.query(
      sql.unsafe`UPDATE payment_links SET expires_at = now() - interval '1 second' WHERE id = ${expiring.id}`,
    );
    const deleted = await newLink();
    await gw.request('DELETE', `/v1/payment-links/${deleted.id}`, { key: acme.key });
    const before = psp.cobs.creates().length;
    expect((await open(paused.slug)).body.error.details.reason).toBe('paused');
    expect((await open(expiring.slug)).body.error.details.reason).toBe('expired');
    const gone = await open(deleted.slug);
    expect([gone.status, gone.body.error.code]).toEqual([404, 'payment_link_not_found']);
    const unknown = await open('no-such-link');
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'payment_link_not_found']);
    expect(psp.cobs.creates().length).toBe(before);
  });

  it('refuses a rail the link does not accept, and sends x402 payers to the x402 resource', async () => {
    const { slug } = await newLink();
    const x402 = await gw.request('POST', `/pay/${slug}/payments`, { body: { rail: 'x402' } });
    expect([x402.status, x402.body.error.code]).toEqual([400, 'use_x402_resource']);
    const bad = await gw.request('POST', `/pay/${slug}/payments`, { body: { rail: 'card' } });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'invalid_body']);
  });
});
