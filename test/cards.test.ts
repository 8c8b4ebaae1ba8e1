// Agent cards through HTTP, on both Temporal servers: a card issued through its mint flow, the issuer's
// real-time authorization requests decided within the deadline (approved and held, declined by a control,
// by a frozen card, for want of balance; racing each other and wallet executes for one balance or a daily
// limit, never holding past it), its later messages applied once and in order (captures partial and
// over, a reversal, an expiry, a refund, duplicates, messages that overtake each other), and the wallet's
// ledger and attempts matching the issuer's own records.
import { sql } from 'slonik';
import { z } from 'zod';
import type { IssuerMock } from '../providers/mocks/issuer';
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';
import { fund, newWallet } from './support/money';

interface Issued {
  id: string;
  card_id: string;
}

const jsonPost = async (url: string, body: Record<string, unknown> = {}) => {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
};

describe.each(TEMPORAL_SERVERS)('agent cards on the %s server', (server) => {
  let gw: Gateway;
  let t: Tenant;
  let issuerUrl: string;
  let issuer: IssuerMock;

  beforeAll(async () => {
    gw = await startGateway({ temporal: server });
    t = await gw.createTenant({ name: 'Cards' });
    issuer = gw.mocks.issuer as IssuerMock;
    issuerUrl = issuer.url;
  });
  afterAll(async () => gw?.stop());

  const helper = (path: string, body: Record<string, unknown> = {}) =>
    jsonPost(`${issuerUrl}/v1/test_helpers${path}`, body);
  const authorize = (card: Issued, amount: number, merchant: Record<string, unknown> = {}, extra = {}) =>
    helper('/issuing/authorizations', {
      card: card.card_id,
      amount,
      currency: 'brl',
      merchant_data: { category_code: '5734', name: 'Compute Co', network_id: 'mch_compute', ...merchant },
      ...extra,
    });
  const balances = async (walletId: string) => {
    const wallet = await gw.request('GET', `/v1/wallets/${walletId}`, { key: t.key });
    const brl = wallet.body.balances.find((b: { currency: string }) => b.currency === 'BRL');
    return { balance: brl.balance_minor as string, available: brl.available_minor as string };
  };
  const issueCard = async (walletId: string, body: Record<string, unknown> = {}): Promise<Issued> => {
    const created = await gw.request('POST', '/v1/cards', {
      key: t.key,
      body: { wallet_id: walletId, ...body },
    });
    expect(created.status).toBe(201);
    return created.body;
  };
  const authorizationsOf = async (card: Issued) =>
    (await gw.request('GET', `/v1/cards/${card.id}/authorizations`, { key: t.key })).body
      .authorizations as Array<Record<string, any>>;

  it('issues a card through its mint flow; the number and CVC stay with the issuer', async () => {
    const walletId = await newWallet(gw, t);
    const created = await gw.request('POST', '/v1/cards', {
      key: t.key,
      body: {
        wallet_id: walletId,
        spending_controls: { spending_limits: [{ interval: 'per_authorization', amount_minor: '50000' }] },
        metadata: { agent: 'buyer-1' },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      object: 'card',
      issuer: 'issuer',
      status: 'active',
      wallet_id: walletId,
      currency: 'BRL',
      network: 'visa',
      spending_controls: { spending_limits: [{ interval: 'per_authorization', amount_minor: '50000' }] },
      metadata: { agent: 'buyer-1' },
    });
    expect(created.body.id).toMatch(/^icrd_/);
    expect(created.body.last4).toMatch(/^[0-9]{4}$/);
    const flow = await gw.request('GET', `/v1/card-mint-flows/${created.body.mint_flow_id}`, { key: t.key });
    expect(flow.body).toMatchObject({
      status: 'minted',
      step: 'minted',
      card_id: created.body.id,
      wallet_id: walletId,
    });
    // The deprecated read answers both ids, as before.
    const old = await gw.request('GET', `/v1/issuer/cards/${created.body.id}`, { key: t.key });
    expect(old.body).toMatchObject({ id: created.body.id, card_id: created.body.card_id, status: 'active' });
    expect((await gw.request('GET', `/v1/issuer/cards/${flow.body.id}`, { key: t.key })).body.status).toBe(
      'minted',
    );

    const display = await gw.request('POST', `/v1/cards/${created.body.id}/display`, { key: t.key });
    expect(display.status).toBe(200);
    const shown = await fetch(display.body.url).then((r) => r.json() as Promise<Record<string, string>>);
    expect(shown.number).toMatch(/^[0-9]{16}$/);
    expect(shown.number.endsWith(created.body.last4)).toBe(true);
    expect((await fetch(display.body.url)).status).toBe(410);
    // Nowhere in the gateway's database: not in a card, a flow, an event, a request.
    const dump = await gw.db.oneFirst(sql.type(z.object({ dump: z.string() }))`
      SELECT concat_ws('|', (SELECT string_agg(to_jsonb(c)::text, '') FROM issuer_cards c),
        (SELECT string_agg(to_jsonb(f)::text, '') FROM issuer_mint_flows f),
        (SELECT string_agg(data::text, '') FROM events)) AS dump`);
    expect(dump).not.toContain(shown.number);
    expect(dump).not.toContain(display.body.url);

    const listed = await gw.request('GET', `/v1/cards?wallet_id=${walletId}`, { key: t.key });
    expect(listed.body.cards.map((c: Issued) => c.id)).toEqual([created.body.id]);
  });

  it('approves an authorization within the deadline, holds it, and captures it once however often the capture comes', async () => {
    const walletId = await newWallet(gw, t);
    await fund(gw, t, walletId, 100_00);
    const card = await issueCard(walletId);
    const auth = await authorize(card, 30_00);
    expect(auth.body).toMatchObject({ approved: true, status: 'pending' });
    expect(auth.body.decided_in_ms).toBeLessThan(2000);
    expect(await balances(walletId)).toEqual({ balance: '10000', available: '7000' });

    const capture = await helper(`/issuing/authorizations/${auth.body.id}/capture`, {
      capture_amount: 25_00,
      duplicates: 3,
    });
    expect(capture.body.delivered).toEqual([200, 200, 200]);
    expect(await balances(walletId)).toEqual({ balance: '7500', available: '7500' });
    const [view] = await authorizationsOf(card);
    expect(view).toMatchObject({ status: 'closed', captured_minor: '2500', held_minor: '0', approved: true });
    expect(view.transactions).toEqual([
      expect.objectContaining({
        type: 'capture',
        amount_minor: '2500',
        ledger_minor: '2500',
        unfunded_minor: '0',
      }),
    ]);
    const events = await gw.request('GET', '/v1/events?type=card.transaction.captured', { key: t.key });
    expect(events.body.events.filter((e: any) => e.data.authorization_id === view.id)).toHaveLength(1);
  });

  it('answers a repeated authorization request with the first decision and holds once', async () => {
    const walletId = await newWallet(gw, t);
    await fund(gw, t, walletId, 50_00);
    const card = await issueCard(walletId);
    const auth = await authorize(card, 20_00, {}, { duplicates: 2 });
    expect(auth.body.approved).toBe(true);
    expect(auth.body.repeated_answers).toEqual([{ approved: true }]);
    expect(await balances(walletId)).toEqual({ balance: '5000', available: '3000' });
  });

  it('declines by the card controls and the balance, holding nothing', async () => {
    const walletId = await newWallet(gw, t);
    await fund(gw, t, walletId, 100_00);
    const card = await issueCard(walletId, {
      spending_controls: {
        spending_limits: [
          { interval: 'per_authorization', amount_minor: '5000' },
          { interval: 'daily', amount_minor: '6000' },
        ],
        blocked_categories: ['7995'],
      },
    });
    const tooBig = await authorize(card, 60_00);
    expect(tooBig.body).toMatchObject({ approved: false, decline_reason: 'per_authorization_limit' });
    const gambling = await authorize(card, 10_00, { category_code: '7995' });
    expect(gambling.body).toMatchObject({ approved: false, decline_reason: 'merchant_category_blocked' });
    expect((await authorize(card, 40_00)).body.approved).toBe(true);
    const overDay = await authorize(card, 30_00);
    expect(overDay.body).toMatchObject({ approved: false, decline_reason: 'periodic_limit' });
    expect(await balances(walletId)).toEqual({ balance: '10000', available: '6000' });

    const poorWallet = await newWallet(gw, t);
    await fund(gw, t, poorWallet, 10_00);
    const poor = await issueCard(poorWallet);
    expect((await authorize(poor, 11_00)).body).toMatchObject({
      approved: false,
      decline_reason: 'insufficient_funds',
    });
    expect(await balances(poorWallet)).toEqual({ balance: '1000', available: '1000' });

    const declined = (await authorizationsOf(card)).filter((a) => !a.approved);
    expect(declined.map((a) => [a.status, a.held_minor])).toEqual([
      ['declined', '0'],
      ['declined', '0'],
      ['declined', '0'],
    ]);
    const events = await gw.request('GET', '/v1/events?type=card.authorization.declined', { key: t.key });
    expect(events.body.events.length).toBeGreaterThanOrEqual(4);
  });

  it('decides racing authorizations one after another: never more held than the balance or a daily limit allows', async () => {
    const walletId = await newWallet(gw, t);
    await fund(gw, t, walletId, 10_00);
    const card = await issueCard(walletId);
    const racing = await Promise.all(Array.from({ length: 8 }, () => authorize(card, 3_00)));
    expect(racing.filter((r) => r.body.approved)).toHaveLength(3);
    expect(racing.filter((r) => !r.body.approved).map((r) => r.body.decline_reason)).toEqual(
      Array(5).fill('insufficient_funds'),
    );
    expect(await balances(walletId)).toEqual({ balance: '1000', available: '100' });

    const richWallet = await newWallet(gw, t);
    await fund(gw, t, richWallet, 100_00);
    const limited = await issueCard(richWallet, {
      spending_controls: { spending_limits: [{ interval: 'daily', amount_minor: '1000' }] },
    });
    const day = await Promise.all(Array.from({ length: 8 }, () => authorize(limited, 3_00)));
    expect(day.filter((r) => r.body.approved)).toHaveLength(3);
    expect(day.filter((r) => !r.body.approved).map((r) => r.body.decline_reason)).toEqual(
      Array(5).fill('periodic_limit'),
    );
    expect(await balances(richWallet)).toEqual({ balance: '10000', available: '9100' });
    const held = (await authorizationsOf(limited)).filter((a) => a.approved).map((a) => a.held_minor);
    expect(held).toEqual(['300', '300', '300']);

    // Card authorizations and wallet executes racing for the same balance: three of the eight get it.
    const shared = await newWallet(gw, t);
    await fund(gw, t, shared, 10_00);
    const sharedCard = await issueCard(shared);
    const execute = (n: number) =>
      gw.request('POST', `/v1/wallets/${shared}/execute`, {
        key: t.key,
        body: {
          amount: 3,
          currency: 'BRL',
          recipient: 'merchant-42',
          description: 'racing the card',
          mandate_id: 'mdt_test',
          attempt_id: `att_card_race_${server}_${n}`,
        },
      });
    const [cardAnswers, executes] = await Promise.all([
      Promise.all(Array.from({ length: 4 }, () => authorize(sharedCard, 3_00))),
      Promise.all(Array.from({ length: 4 }, (_, n) => execute(n))),
    ]);
    const approved = cardAnswers.filter((r) => r.body.approved).length;
    const paid = executes.filter((r) => r.status === 200 && r.body.status === 'completed').length;
    expect(approved + paid).toBe(3);
    for (const r of executes)
      if (r.body.status !== 'completed')
        expect([r.status, r.body.status, r.body.wallet.insufficientFunds]).toEqual([200, 'failed', true]);
    for (const r of cardAnswers)
      if (!r.body.approved) expect(r.body.decline_reason).toBe('insufficient_funds');
    expect(await balances(shared)).toEqual({
      balance: String(10_00 - paid * 3_00),
      available: '100',
    });
  });

  it('declines everything on a frozen card until it is unfrozen, and nothing once closed', async () => {
    const walletId = await newWallet(gw, t);
    await fund(gw, t, walletId, 100_00);
    const card = await issueCard(walletId);
    const frozen = await gw.request('POST', `/v1/cards/${card.id}/freeze`, { key: t.key });
    expect(frozen.body.status).toBe('frozen');
    for (const amount of [1, 10_00])
      expect((await authorize(card, amount)).body).toMatchObject({
        approved: false,
        decline_reason: 'card_inactive',
      });
    expect(await balances(walletId)).toEqual({ balance: '10000', available: '10000' });
    const unfrozen = await gw.request('POST', `/v1/cards/${card.id}/unfreeze`, { key: t.key });
    expect(unfrozen.body.status).toBe('active');
    expect((await authorize(card, 10_00)).body.approved).toBe(true);
    expect((await gw.request('POST', `/v1/cards/${card.id}/close`, { key: t.key })).body.status).toBe(
      'closed',
    );
    const again = await gw.request('POST', `/v1/cards/${card.id}/unfreeze`, { key: t.key });
    expect([again.status, again.body.error.code]).toEqual([409, 'card_closed']);
  });

  it('releases on reversal and expiry, credits a refund, and applies messages that overtake each other in order', async () => {
    const walletId = await newWallet(gw, t);
    await fund(gw, t, walletId, 100_00);
    const card = await issueCard(walletId);
    const reversed = await authorize(card, 10_00);
    await helper(`/issuing/authorizations/${reversed.body.id}/reverse`);
    const expired = await authorize(card, 5_00);
    await helper(`/issuing/authorizations/${expired.body.id}/expire`);
    expect(await balances(walletId)).toEqual({ balance: '10000', available: '10000' });

    // Capture over the authorization (within 15%), then a refund: held back and delivered newest first.
    const bought = await authorize(card, 20_00);
    await helper('/delivery/hold');
    const capture = await helper(`/issuing/authorizations/${bought.body.id}/capture`, {
      capture_amount: 22_00,
    });
    await helper(`/issuing/transactions/${capture.body.id}/refund`, { refund_amount: 7_00 });
    const flushed = await helper('/delivery/flush', { order: 'reverse' });
    expect(flushed.body.delivered).toEqual([200, 200]);
    expect(await balances(walletId)).toEqual({ balance: '8500', available: '8500' });

    const views = await authorizationsOf(card);
    const byIssuerId = new Map(views.map((v) => [v.issuer_authorization_id, v]));
    expect(byIssuerId.get(reversed.body.id)).toMatchObject({ status: 'reversed', held_minor: '0' });
    expect(byIssuerId.get(expired.body.id)).toMatchObject({ status: 'expired', held_minor: '0' });
    expect(byIssuerId.get(bought.body.id)).toMatchObject({
      status: 'closed',
      captured_minor: '2200',
      refunded_minor: '700',
    });
    expect(
      byIssuerId
        .get(bought.body.id)!
        .transactions.map((tx: any) => [tx.type, tx.amount_minor, tx.ledger_minor]),
    ).toEqual([
      ['capture', '2200', '2200'],
      ['refund', '700', '700'],
    ]);
  });

  it("keeps the wallet's ledger and attempts exactly in step with the issuer's records", async () => {
    const walletId = await newWallet(gw, t);
    await fund(gw, t, walletId, 200_00);
    const card = await issueCard(walletId, {
      spending_controls: { spending_limits: [{ interval: 'per_authorization', amount_minor: '9000' }] },
    });
    const a = await authorize(card, 40_00);
    const b = await authorize(card, 95_00); // declined by the control
    const c = await authorize(card, 30_00);
    const d = await authorize(card, 10_00);
    await helper(`/issuing/authorizations/${a.body.id}/capture`, { capture_amount: 40_00, duplicates: 2 });
    await helper(`/issuing/authorizations/${c.body.id}/capture`, { capture_amount: 12_00 });
    await helper(`/issuing/authorizations/${d.body.id}/reverse`, { duplicates: 2 });
    expect(b.body.approved).toBe(false);

    const records = issuer.authorizations().filter((x) => x.card === card.card_id);
    const views = await authorizationsOf(card);
    expect(views.map((v) => [v.issuer_authorization_id, v.approved, v.amount_minor]).sort()).toEqual(
      records.map((r) => [r.id, r.approved, String(r.amount)]).sort(),
    );
    // Attempts: one per authorization request, its reply the decision the issuer recorded.
    const attempts = await gw.db.any(sql.type(
      z.object({ attempt_id: z.string(), status: z.string(), response_body: z.any() }),
    )`
      SELECT attempt_id, status, response_body FROM attempts WHERE org_id = ${t.orgId} AND wallet_id = ${walletId} AND family = 'card_authorization'`);
    expect(attempts.map((x) => [x.attempt_id, x.status, x.response_body.approved]).sort()).toEqual(
      records.map((r) => [`card:${r.id}`, r.approved ? 'completed' : 'denied', r.approved]).sort(),
    );
    // Ledger: each issuer capture is one debit with its id, each approval one hold, each reversal one release.
    const captures = issuer.transactions().filter((x) => x.card === card.card_id && x.type === 'capture');
    const entries = (
      await gw.request('GET', `/v1/wallets/${walletId}/ledger-entries?limit=100`, { key: t.key })
    ).body.entries as Array<Record<string, any>>;
    const debits = entries.filter((e) => e.kind === 'debit');
    expect(debits.map((e) => [e.external_ref, e.amount_minor]).sort()).toEqual(
      captures.map((x) => [`card:${x.id}`, String(-x.amount)]).sort(),
    );
    expect(entries.filter((e) => e.kind === 'hold')).toHaveLength(records.filter((r) => r.approved).length);
    const captured = captures.reduce((sum, x) => sum + x.amount, 0);
    expect(await balances(walletId)).toEqual({
      balance: String(200_00 - captured),
      available: String(200_00 - captured),
    });
  });

  it('refuses an unsigned or tampered issuer message and changes nothing', async () => {
    const unsigned = await gw.request('POST', '/webhooks/issuer', {
      body: { id: 'evt_x', type: 'issuing_authorization.request', data: { object: { id: 'iauth_x' } } },
    });
    expect([unsigned.status, unsigned.body.error.code]).toEqual([401, 'invalid_signature']);
    const count = await gw.db.oneFirst(
      sql.type(
        z.object({ n: z.number() }),
      )`SELECT count(*)::int AS n FROM card_authorizations WHERE issuer_authorization_id = 'iauth_x'`,
    );
    expect(count).toBe(0);
  });

  it('answers 404 for a card or mint flow of another project and 400 for a malformed id', async () => {
    const other = await gw.createTenant({ name: 'Other' });
    const walletId = await newWallet(gw, t);
    const card = await issueCard(walletId);
    const read = await gw.request('GET', `/v1/cards/${card.id}`, { key: other.key });
    expect([read.status, read.body.error.code]).toEqual([404, 'not_found']);
    const freeze = await gw.request('POST', `/v1/cards/${card.id}/freeze`, { key: other.key });
    expect(freeze.status).toBe(404);
    const bad = await gw.request('GET', '/v1/cards/wal_123', { key: t.key });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'invalid_params']);
    const noWallet = await gw.request('POST', '/v1/cards', {
      key: t.key,
      body: { wallet_id: 'wal_missing' },
    });
    expect([noWallet.status, noWallet.body.error.code]).toEqual([404, 'not_found']);
  });
});
