// Wallets through HTTP: create, list, read with balances, status moves, funding sources, transfers, isolation.
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { adjust, expectBalanced, fund, insertConnection, newWallet, post } from './support/money';
import { API_KEY_SANDBOX } from '../providers/mocks/auth-api-key';
import type { AuthMock } from '../providers/mocks/auth-mock';

let gw: Gateway;
let t: Tenant;
beforeAll(async () => {
  gw = await startGateway({ worker: false });
  t = await gw.createTenant();
});
afterAll(async () => {
  await gw?.stop();
});

describe('wallet lifecycle', () => {
  it('creates a wallet with a zero balance in its currency and reads it back', async () => {
    const created = await gw.request('POST', '/v1/wallets', {
      key: t.key,
      body: { display_name: 'Agent float', currency: 'USDC', agent_id: 'agent-7', metadata: { team: 'ops' } },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      display_name: 'Agent float',
      status: 'active',
      agent_id: 'agent-7',
      org_id: t.orgId,
      project_id: t.projectId,
      closed_at: null,
      metadata: { team: 'ops' },
    });
    expect(created.body.id).toMatch(/^wal_/);
    expect(created.body.balances).toEqual([
      expect.objectContaining({ currency: 'USDC', balance_minor: '0', available_minor: '0' }),
    ]);
    const read = await gw.request('GET', `/v1/wallets/${created.body.id}`, { key: t.key });
    expect(read.status).toBe(200);
    expect(read.body.balances[0].balance_minor).toBe('0');
  });

  it('refuses a bad create with invalid_body and creates nothing', async () => {
    const before = await gw.request('GET', '/v1/wallets?limit=100', { key: t.key });
    for (const body of [
      { display_name: '', currency: 'BRL' },
      { display_name: 'x', currency: 'EUR' },
      { display_name: 'x', currency: 'BRL', extra: 1 },
      { currency: 'BRL' },
    ]) {
      const r = await gw.request('POST', '/v1/wallets', { key: t.key, body });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('invalid_body');
    }
    const after = await gw.request('GET', '/v1/wallets?limit=100', { key: t.key });
    expect(after.body.wallets.length).toBe(before.body.wallets.length);
  });

  it('lists wallets newest first with balances and pages with starting_after', async () => {
    const tenant = await gw.createTenant();
    const ids = [await newWallet(gw, tenant), await newWallet(gw, tenant), await newWallet(gw, tenant)];
    const first = await gw.request('GET', '/v1/wallets?limit=2', { key: tenant.key });
    expect(first.status).toBe(200);
    expect(first.body.has_more).toBe(true);
    const second = await gw.request('GET', `/v1/wallets?limit=2&starting_after=${first.body.wallets[1].id}`, {
      key: tenant.key,
    });
    const seen = [...first.body.wallets, ...second.body.wallets].map((w: { id: string }) => w.id);
    expect(new Set(seen)).toEqual(new Set(ids));
    expect(second.body.has_more).toBe(false);
    expect(first.body.wallets[0].balances).toHaveLength(1);
  });

  it('freezes a wallet so it refuses entries with wallet_not_active, and unfreezes it', async () => {
    const id = await newWallet(gw, t);
    await fund(gw, t, id, 1000);
    const frozen = await gw.request('POST', `/v1/wallets/${id}/freeze`, { key: t.key });
    expect(frozen.status).toBe(200);
    expect(frozen.body.status).toBe('frozen');
    for (const refused of [await post(gw, t, id, 'fund', 5), await adjust(gw, t, id, 'fee', 5)]) {
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('wallet_not_active');
    }
    const again = await gw.request('POST', `/v1/wallets/${id}/freeze`, { key: t.key });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('invalid_transition');
    expect((await gw.request('POST', `/v1/wallets/${id}/unfreeze`, { key: t.key })).body.status).toBe(
      'active',
    );
    expect((await post(gw, t, id, 'fund', 5)).status).toBe(201);
    expect((await adjust(gw, t, id, 'fee', 5)).status).toBe(201);
    await expectBalanced(gw, id);
  });

  it('closes only an empty wallet, and a closed wallet accepts nothing', async () => {
    const id = await newWallet(gw, t);
    await fund(gw, t, id, 300);
    const full = await gw.request('POST', `/v1/wallets/${id}/close`, { key: t.key });
    expect(full.status).toBe(409);
    expect(full.body.error.code).toBe('wallet_not_empty');
    // An operator takes the balance out before the wallet is closed.
    expect((await adjust(gw, t, id, 'fee', 300, { reason: 'Balance paid out before closing' })).status).toBe(
      201,
    );
    const closed = await gw.request('POST', `/v1/wallets/${id}/close`, { key: t.key });
    expect(closed.status).toBe(200);
    expect(closed.body.status).toBe('closed');
    expect(closed.body.closed_at).not.toBeNull();
    for (const refused of [await post(gw, t, id, 'fund', 1), await adjust(gw, t, id, 'reconcile', 1)]) {
      expect([refused.status, refused.body.error.code]).toEqual([409, 'wallet_not_active']);
    }
    expect((await gw.request('POST', `/v1/wallets/${id}/unfreeze`, { key: t.key })).body.error.code).toBe(
      'invalid_transition',
    );
  });

  it('records wallet events in the outbox with the change', async () => {
    const id = await newWallet(gw, t);
    await gw.request('POST', `/v1/wallets/${id}/freeze`, { key: t.key });
    const { rows } = await gw.db.query(
      require('slonik').sql
        .unsafe`SELECT type FROM events WHERE data->>'wallet_id' = ${id} ORDER BY created_at, id`,
    );
    expect(rows.map((r: { type: string }) => r.type)).toEqual(['wallet.created', 'wallet.frozen']);
  });
});

describe('funding sources', () => {
  it('binds, lists and unbinds a connection whose rail carries the currency', async () => {
    const id = await newWallet(gw, t);
    const conn = await insertConnection(gw, t, 'pix');
    const bound = await gw.request('POST', `/v1/wallets/${id}/funding-sources`, {
      key: t.key,
      body: { connection_id: conn, currency: 'BRL' },
    });
    expect(bound.status).toBe(201);
    expect(bound.body).toMatchObject({ wallet_id: id, connection_id: conn, currency: 'BRL', enabled: true });
    const list = await gw.request('GET', `/v1/wallets/${id}/funding-sources`, { key: t.key });
    expect(list.body.funding_sources).toHaveLength(1);
    const removed = await gw.request('DELETE', `/v1/wallets/${id}/funding-sources/${conn}`, { key: t.key });
    expect(removed.status).toBe(200);
    const gone = await gw.request('DELETE', `/v1/wallets/${id}/funding-sources/${conn}`, { key: t.key });
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('funding_source_not_found');
  });

  it.each([
    ['connection_not_found', 404, async () => 'conn_missing', 'BRL'],
    ['connection_not_active', 409, async () => insertConnection(gw, t, 'pix', 'inactive'), 'BRL'],
    ['funding_rail_mismatch', 409, async () => insertConnection(gw, t, 'spei'), 'BRL'],
  ])('refuses a binding with %s', async (code, status, connection, currency) => {
    const id = await newWallet(gw, t);
    const r = await gw.request('POST', `/v1/wallets/${id}/funding-sources`, {
      key: t.key,
      body: { connection_id: await connection(), currency },
    });
    expect(r.status).toBe(status);
    expect(r.body.error.code).toBe(code);
    expect(
      (await gw.request('GET', `/v1/wallets/${id}/funding-sources`, { key: t.key })).body.funding_sources,
    ).toHaveLength(0);
  });

  it('binds a connection made through the connect route, and unbinds it when the connection is deleted', async () => {
    const id = await newWallet(gw, t);
    const conn = await gw.request('POST', '/v1/providers/pix-psp/connections', {
      key: t.key,
      body: { credentials: API_KEY_SANDBOX },
    });
    expect(conn.status).toBe(201);
    const bound = await gw.request('POST', `/v1/wallets/${id}/funding-sources`, {
      key: t.key,
      body: { connection_id: conn.body.id, currency: 'BRL' },
    });
    expect(bound.status).toBe(201);
    expect((await gw.request('DELETE', `/v1/connections/${conn.body.id}`, { key: t.key })).status).toBe(200);
    expect(
      (await gw.request('GET', `/v1/wallets/${id}/funding-sources`, { key: t.key })).body.funding_sources,
    ).toHaveLength(0);
  });

  it('refuses an on-chain connection without a wallet address with no_onchain_wallet, and binds one with it', async () => {
    const id = await newWallet(gw, t, { currency: 'USDC' });
    const mock = gw.mocks.auth_jwt_ecdsa as unknown as AuthMock;
    const bare = await gw.request('POST', '/v1/providers/stablecoin-rails/connections', {
      key: t.key,
      body: { credentials: mock.credentials },
    });
    const refused = await gw.request('POST', `/v1/wallets/${id}/funding-sources`, {
      key: t.key,
      body: { connection_id: bare.body.id, currency: 'USDC' },
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('no_onchain_wallet');
    expect(
      (await gw.request('GET', `/v1/wallets/${id}/funding-sources`, { key: t.key })).body.funding_sources,
    ).toHaveLength(0);
    const addressed = await gw.request('POST', '/v1/providers/stablecoin-rails/connections', {
      key: t.key,
      body: { credentials: { ...mock.credentials, onchain_address: `0x${'12'.repeat(20)}` } },
    });
    const bound = await gw.request('POST', `/v1/wallets/${id}/funding-sources`, {
      key: t.key,
      body: { connection_id: addressed.body.id, currency: 'USDC' },
    });
    expect(bound.status).toBe(201);
  });

  it('refuses a connection of a rail-less server (fiscal, shipping) with funding_rail_mismatch', async () => {
    const id = await newWallet(gw, t);
    const conn = await gw.request('POST', '/v1/providers/freight-quotes/connections', {
      key: t.key,
      body: { credentials: { client_id: 'freight_client_1', client_secret: 'freight_secret_000000001' } },
    });
    const r = await gw.request('POST', `/v1/wallets/${id}/funding-sources`, {
      key: t.key,
      body: { connection_id: conn.body.id, currency: 'BRL' },
    });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('funding_rail_mismatch');
  });

  it("answers connection_not_found for another organization's connection", async () => {
    const other = await gw.createTenant();
    const theirs = await gw.request('POST', '/v1/providers/pix-psp/connections', {
      key: other.key,
      body: { credentials: API_KEY_SANDBOX },
    });
    const id = await newWallet(gw, t);
    const r = await gw.request('POST', `/v1/wallets/${id}/funding-sources`, {
      key: t.key,
      body: { connection_id: theirs.body.id, currency: 'BRL' },
    });
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('connection_not_found');
  });

  it('refuses a second binding of the same currency with funding_source_conflict', async () => {
    const id = await newWallet(gw, t);
    const a = await insertConnection(gw, t, 'pix');
    const b = await insertConnection(gw, t, 'ted');
    expect(
      (
        await gw.request('POST', `/v1/wallets/${id}/funding-sources`, {
          key: t.key,
          body: { connection_id: a, currency: 'BRL' },
        })
      ).status,
    ).toBe(201);
    const r = await gw.request('POST', `/v1/wallets/${id}/funding-sources`, {
      key: t.key,
      body: { connection_id: b, currency: 'BRL' },
    });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('funding_source_conflict');
  });
});

describe('transfers', () => {
  it('moves money between two wallets of the project in one transaction', async () => {
    const from = await newWallet(gw, t);
    const to = await newWallet(gw, t);
    await fund(gw, t, from, 1000);
    const r = await gw.request('POST', `/v1/wallets/${from}/transfers`, {
      key: t.key,
      body: { to_wallet_id: to, currency: 'BRL', amount_minor: '400', external_ref: 'trf-1' },
    });
    expect(r.status).toBe(201);
    expect(
      r.body.entries.map((e: { kind: string; amount_minor: string }) => [e.kind, e.amount_minor]),
    ).toEqual([
      ['debit', '-400'],
      ['fund', '400'],
    ]);
    const a = await gw.request('GET', `/v1/wallets/${from}`, { key: t.key });
    const b = await gw.request('GET', `/v1/wallets/${to}`, { key: t.key });
    expect(a.body.balances[0].balance_minor).toBe('600');
    expect(b.body.balances[0].balance_minor).toBe('400');
    const repeat = await gw.request('POST', `/v1/wallets/${from}/transfers`, {
      key: t.key,
      body: { to_wallet_id: to, currency: 'BRL', amount_minor: '400', external_ref: 'trf-1' },
    });
    expect(repeat.status).toBe(409);
    expect(repeat.body.error.code).toBe('ledger_conflict');
    await expectBalanced(gw, from);
    await expectBalanced(gw, to);
  });

  it('refuses a transfer to the same slot with same_slot_transfer and across currencies with unsupported_transfer_route', async () => {
    const from = await newWallet(gw, t);
    const to = await newWallet(gw, t, { currency: 'USD' });
    await fund(gw, t, from, 1000);
    const same = await gw.request('POST', `/v1/wallets/${from}/transfers`, {
      key: t.key,
      body: { to_wallet_id: from, currency: 'BRL', amount_minor: '1' },
    });
    expect(same.status).toBe(422);
    expect(same.body.error.code).toBe('same_slot_transfer');
    const fx = await gw.request('POST', `/v1/wallets/${from}/transfers`, {
      key: t.key,
      body: { to_wallet_id: to, currency: 'BRL', to_currency: 'USD', amount_minor: '1' },
    });
    expect(fx.status).toBe(422);
    expect(fx.body.error.code).toBe('unsupported_transfer_route');
    expect(
      (await gw.request('GET', `/v1/wallets/${from}`, { key: t.key })).body.balances[0].balance_minor,
    ).toBe('1000');
  });

  it('refuses a transfer larger than the available balance and writes nothing', async () => {
    const from = await newWallet(gw, t);
    const to = await newWallet(gw, t);
    await fund(gw, t, from, 100);
    const r = await gw.request('POST', `/v1/wallets/${from}/transfers`, {
      key: t.key,
      body: { to_wallet_id: to, currency: 'BRL', amount_minor: '101' },
    });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('balance_constraint_violation');
    expect(
      (await gw.request('GET', `/v1/wallets/${to}/ledger-entries`, { key: t.key })).body.entries,
    ).toHaveLength(0);
  });
});

describe('tenant isolation', () => {
  it("answers 404 for another tenant's wallet on every wallet route and changes nothing", async () => {
    const other = await gw.createTenant();
    const id = await newWallet(gw, t);
    await fund(gw, t, id, 500);
    const mine = await newWallet(gw, other);
    const conn = await insertConnection(gw, other, 'pix');
    const calls: Array<[string, string, unknown?]> = [
      ['GET', `/v1/wallets/${id}`],
      ['POST', `/v1/wallets/${id}/freeze`],
      ['POST', `/v1/wallets/${id}/unfreeze`],
      ['POST', `/v1/wallets/${id}/close`],
      ['GET', `/v1/wallets/${id}/funding-sources`],
      ['POST', `/v1/wallets/${id}/funding-sources`, { connection_id: conn, currency: 'BRL' }],
      ['DELETE', `/v1/wallets/${id}/funding-sources/${conn}`],
      ['POST', `/v1/wallets/${id}/transfers`, { to_wallet_id: mine, currency: 'BRL', amount_minor: '10' }],
      ['POST', `/v1/wallets/${mine}/transfers`, { to_wallet_id: id, currency: 'BRL', amount_minor: '10' }],
      ['GET', `/v1/wallets/${id}/ledger-entries`],
      [
        'POST',
        '/v1/ledger-entries',
        { wallet_id: id, org_id: other.orgId, currency: 'BRL', amount_minor: '10', kind: 'fund' },
      ],
      [
        'POST',
        '/v1/ledger-entries',
        { wallet_id: id, org_id: t.orgId, currency: 'BRL', amount_minor: '10', kind: 'fund' },
      ],
    ];
    for (const [method, path, body] of calls) {
      const r = await gw.request(method, path, { key: other.key, body });
      expect([path, r.status]).toEqual([path, 404]);
      expect(r.body.error.code).toBe('not_found');
    }
    // An operator acting in the other tenant's project does not reach the wallet either.
    for (const kind of ['fund', 'fee']) {
      const r = await adjust(gw, other, id, kind, 10);
      expect([kind, r.status, r.body.error.code]).toEqual([kind, 404, 'not_found']);
    }
    const list = await gw.request('GET', '/v1/wallets', { key: other.key });
    expect(list.body.wallets.map((w: { id: string }) => w.id)).toEqual([mine]);
    const read = await gw.request('GET', `/v1/wallets/${id}`, { key: t.key });
    expect(read.body.status).toBe('active');
    expect(read.body.balances[0].balance_minor).toBe('500');
  });

  it('refuses restricted keys on wallet routes with route_scope_unmapped', async () => {
    const restricted = await gw.createKey(t.projectId, { scopes: ['sessions:read'] });
    const r = await gw.request('GET', '/v1/wallets', { key: restricted.key });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('route_scope_unmapped');
  });
});
