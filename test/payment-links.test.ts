// Payment links through HTTP: create, list, read, update, delete, and every refusal the spec names,
// each of which writes nothing.
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { connect } from './support/oauth-flow';
import type { X402WalletsMock } from '../providers/mocks/x402-wallets';

let gw: Gateway;
let acme: Tenant;

beforeAll(async () => {
  gw = await startGateway({ worker: false });
  acme = await gw.createTenant({ name: 'Acme' });
});
afterAll(async () => gw?.stop());

const BYO = '0x1111111111111111111111111111111111111111';
const pixAccept = (over: Record<string, unknown> = {}) => ({
  rail: 'pix',
  amount: '25.90',
  currency: 'BRL',
  pix: { key: 'loja@acme.test' },
  ...over,
});
const x402Accept = (over: Record<string, unknown> = {}) => ({
  rail: 'x402',
  amount: '1.5',
  currency: 'USDC',
  pay_to: { kind: 'byo', address: BYO },
  ...over,
});
const create = (body: Record<string, unknown>, key = acme.key) =>
  gw.request('POST', '/v1/payment-links', { key, body });
const countLinks = async (key = acme.key) =>
  (await gw.request('GET', '/v1/payment-links', { key })).body.payment_links.length as number;

describe('payment links', () => {
  it('creates a link with both rails, shaped as the spec says, and reads it back', async () => {
    const created = await create({
      title: 'Ebook',
      description: 'A book',
      slug: 'acme-ebook',
      accepts: [pixAccept(), x402Accept()],
      max_uses: 10,
      metadata: { sku: 'e1' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^pl_/),
      project_id: acme.projectId,
      slug: 'acme-ebook',
      title: 'Ebook',
      description: 'A book',
      pay_url: `${gw.url}/pay/acme-ebook`,
      accepts: [
        { rail: 'pix', currency: 'BRL', amount_atomic: '2590', pay_to: 'loja@acme.test', pay_to_kind: 'byo' },
        { rail: 'x402', currency: 'USDC', amount_atomic: '1500000', pay_to: BYO, pay_to_kind: 'byo' },
      ],
      environment: 'test',
      one_time: false,
      status: 'active',
      use_count: 0,
      max_uses: 10,
      expires_at: null,
      redirect_url: null,
      active: true,
      created_at: expect.any(String),
      metadata: { sku: 'e1' },
    });
    const read = await gw.request('GET', `/v1/payment-links/${created.body.id}`, { key: acme.key });
    expect(read.body).toEqual(created.body);
    const listed = await gw.request('GET', '/v1/payment-links', { key: acme.key });
    expect(listed.body.payment_links.map((l: { id: string }) => l.id)).toContain(created.body.id);
  });

  it('generates a slug when none is given', async () => {
    const created = await create({ title: 'Gen', accepts: [pixAccept()] });
    expect(created.status).toBe(201);
    expect(created.body.slug).toMatch(/^[a-z0-9]{12}$/);
    expect(created.body.pay_url).toBe(`${gw.url}/pay/${created.body.slug}`);
  });

  it('refuses a rail twice with invalid_rail and writes nothing', async () => {
    const before = await countLinks();
    const refused = await create({ title: 'Twice', accepts: [pixAccept(), pixAccept({ amount: '1' })] });
    expect([refused.status, refused.body.error.code, refused.body.request_id]).toEqual([
      400,
      'invalid_rail',
      refused.headers.get('x-request-id'),
    ]);
    expect(await countLinks()).toBe(before);
  });

  it.each([
    ['a byo x402 without an address', x402Accept({ pay_to: { kind: 'byo' } })],
    ['a byo x402 with a malformed address', x402Accept({ pay_to: { kind: 'byo', address: '0x123' } })],
    ['a provisioned x402 without consumer_id', x402Accept({ pay_to: { kind: 'provisioned' } })],
    [
      'a provisioned x402 naming an unknown consumer',
      x402Accept({ pay_to: { kind: 'provisioned', consumer_id: 'con_nobody' } }),
    ],
    ['a Pix accept with neither key nor account', pixAccept({ pix: {} })],
    ['a Pix accept with a key that is no DICT key', pixAccept({ pix: { key: 'not a key' } })],
  ])('refuses %s with invalid_payto and writes nothing', async (_, accept) => {
    const before = await countLinks();
    const refused = await create({ title: 'Bad', accepts: [accept] });
    expect([refused.status, refused.body.error.code]).toEqual([400, 'invalid_payto']);
    expect(await countLinks()).toBe(before);
  });

  it.each([
    ['no accepts', { title: 'x', accepts: [] }],
    ['no title', { accepts: [pixAccept()] }],
    ['a Pix amount with three decimals', { title: 'x', accepts: [pixAccept({ amount: '1.005' })] }],
    ['a zero amount', { title: 'x', accepts: [x402Accept({ amount: '0.000000' })] }],
    ['a negative amount', { title: 'x', accepts: [pixAccept({ amount: '-1' })] }],
    ['a wrong currency for the rail', { title: 'x', accepts: [pixAccept({ currency: 'USDC' })] }],
    ['an unknown rail', { title: 'x', accepts: [{ rail: 'card', amount: '1', currency: 'BRL' }] }],
    ['a max_uses of zero', { title: 'x', accepts: [pixAccept()], max_uses: 0 }],
    ['a malformed slug', { title: 'x', accepts: [pixAccept()], slug: 'Not A Slug' }],
    ['an environment in the body', { title: 'x', accepts: [pixAccept()], environment: 'live' }],
    ['a redirect_url that is no URI', { title: 'x', accepts: [pixAccept()], redirect_url: 'not a uri' }],
  ])('refuses %s with invalid_body and writes nothing', async (_, body) => {
    const before = await countLinks();
    const refused = await create(body);
    expect([refused.status, refused.body.error.code]).toEqual([400, 'invalid_body']);
    expect(await countLinks()).toBe(before);
  });

  it('refuses an expiry in the past', async () => {
    const refused = await create({ title: 'x', accepts: [pixAccept()], expires_at: '2020-01-01T00:00:00Z' });
    expect([refused.status, refused.body.error.code]).toEqual([400, 'expires_at_in_past']);
  });

  it('makes a provisioned x402 receiving wallet at link creation and reuses it for the same consumer', async () => {
    const consumer = await gw.request('POST', '/v1/consumers', {
      key: acme.key,
      body: { display_name: 'Ana' },
    });
    expect(consumer.status).toBe(201);
    const provisioned = () =>
      create({
        title: 'Prov',
        accepts: [x402Accept({ pay_to: { kind: 'provisioned', consumer_id: consumer.body.id } })],
      });
    const first = await provisioned();
    expect(first.status).toBe(201);
    const made = (gw.mocks.x402_wallets as X402WalletsMock)
      .wallets()
      .filter((w) => w.owner_ref === consumer.body.id);
    expect(made).toHaveLength(1);
    expect(first.body.accepts).toEqual([
      {
        rail: 'x402',
        currency: 'USDC',
        amount_atomic: '1500000',
        pay_to: made[0].address,
        pay_to_kind: 'provisioned',
      },
    ]);
    const second = await provisioned();
    expect(second.body.accepts[0].pay_to).toBe(made[0].address);
  });

  it('answers 502 and creates nothing when the receiving wallet cannot be provisioned', async () => {
    const consumer = await gw.request('POST', '/v1/consumers', {
      key: acme.key,
      body: { display_name: 'Bia' },
    });
    const wallets = gw.mocks.x402_wallets as X402WalletsMock;
    const before = await countLinks();
    wallets.failNext(1);
    const refused = await create({
      title: 'Prov',
      accepts: [x402Accept({ pay_to: { kind: 'provisioned', consumer_id: consumer.body.id } })],
    });
    expect([refused.status, refused.body.error.code]).toEqual([502, 'wallet_provisioning_failed']);
    expect(await countLinks()).toBe(before);
    expect(wallets.wallets().filter((w) => w.owner_ref === consumer.body.id)).toEqual([]);
  });

  it("answers a link's x402 resource with 503 x402_unavailable when no chain is configured, and names unknown links and rails", async () => {
    const link = await create({ title: 'Both', accepts: [x402Accept(), pixAccept()] });
    const off = await gw.request('GET', `/pay/${link.body.slug}/x402`);
    expect([off.status, off.body.error.code]).toEqual([503, 'x402_unavailable']);
    const pixOnly = await create({ title: 'Pix', accepts: [pixAccept()] });
    const noRail = await gw.request('GET', `/pay/${pixOnly.body.slug}/x402`);
    expect([noRail.status, noRail.body.error.code, noRail.body.error.details.reason]).toEqual([
      409,
      'payment_link_not_payable',
      'rail_not_accepted',
    ]);
    const unknown = await gw.request('POST', '/pay/no-such-link/x402');
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'payment_link_not_found']);
  });

  it('refuses a slug another account holds with slug_conflict (409): the namespace is global', async () => {
    const other = await gw.createTenant({ name: 'Other' });
    expect((await create({ title: 'Mine', slug: 'shared-slug', accepts: [pixAccept()] })).status).toBe(201);
    const before = await countLinks(other.key);
    const refused = await create({ title: 'Theirs', slug: 'shared-slug', accepts: [pixAccept()] }, other.key);
    expect([refused.status, refused.body.error.code]).toEqual([409, 'slug_conflict']);
    expect(await countLinks(other.key)).toBe(before);
  });

  it("hides another project's link behind payment_link_not_found", async () => {
    const other = await gw.createTenant({ name: 'Other2' });
    const mine = await create({ title: 'Private', accepts: [pixAccept()] });
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { title: 'stolen' }],
      ['DELETE', undefined],
    ] as const) {
      const refused = await gw.request(method, `/v1/payment-links/${mine.body.id}`, { key: other.key, body });
      expect([method, refused.status, refused.body.error.code]).toEqual([
        method,
        404,
        'payment_link_not_found',
      ]);
    }
    expect((await gw.request('GET', `/v1/payment-links/${mine.body.id}`, { key: acme.key })).body.title).toBe(
      'Private',
    );
  });

  it('pauses, resumes, retitles and clears fields with PATCH, and refuses to edit accepts', async () => {
    const link = await create({
      title: 'Old',
      description: 'd',
      redirect_url: 'https://acme.test/thanks',
      accepts: [pixAccept()],
    });
    const paused = await gw.request('PATCH', `/v1/payment-links/${link.body.id}`, {
      key: acme.key,
      body: { active: false, title: 'New', description: null },
    });
    expect([
      paused.status,
      paused.body.active,
      paused.body.title,
      paused.body.description,
      paused.body.redirect_url,
    ]).toEqual([200, false, 'New', null, 'https://acme.test/thanks']);
    const resumed = await gw.request('PATCH', `/v1/payment-links/${link.body.id}`, {
      key: acme.key,
      body: { active: true },
    });
    expect([resumed.body.active, resumed.body.title]).toEqual([true, 'New']);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    const expiring = await gw.request('PATCH', `/v1/payment-links/${link.body.id}`, {
      key: acme.key,
      body: { expires_at: future },
    });
    expect(Date.parse(expiring.body.expires_at)).toBe(Date.parse(future));
    const expired = await gw.request('PATCH', `/v1/payment-links/${link.body.id}`, {
      key: acme.key,
      body: { expires_at: '2020-01-01T00:00:00Z' },
    });
    expect(expired.body.status).toBe('expired');
    for (const body of [
      { accepts: [pixAccept()] },
      {},
      { expires_at: '0000-01-01T00:00:00Z' },
      { expires_at: '2030-01-01T00:00:00+23:00' },
    ]) {
      const refused = await gw.request('PATCH', `/v1/payment-links/${link.body.id}`, { key: acme.key, body });
      expect([refused.status, refused.body.error.code]).toEqual([400, 'invalid_body']);
    }
    expect(
      (await gw.request('GET', `/v1/payment-links/${link.body.id}`, { key: acme.key })).body.accepts,
    ).toEqual(link.body.accepts);
  });

  it('deletes a link (204), then answers payment_link_not_found, and keeps its slug taken', async () => {
    const link = await create({ title: 'Gone', slug: 'gone-link', accepts: [pixAccept()] });
    expect((await gw.request('DELETE', `/v1/payment-links/${link.body.id}`, { key: acme.key })).status).toBe(
      204,
    );
    const read = await gw.request('GET', `/v1/payment-links/${link.body.id}`, { key: acme.key });
    expect([read.status, read.body.error.code]).toEqual([404, 'payment_link_not_found']);
    expect((await gw.request('DELETE', `/v1/payment-links/${link.body.id}`, { key: acme.key })).status).toBe(
      404,
    );
    expect((await create({ title: 'Again', slug: 'gone-link', accepts: [pixAccept()] })).status).toBe(409);
  });

  // An OAuth token is always a restricted credential and links have no scope of their own, so the
  // scope check refuses it (403 route_scope_unmapped) before the writer check would (403 forbidden).
  it('refuses an OAuth token with 403 and writes nothing', async () => {
    const { tokens } = await connect(gw, acme.key);
    const before = await countLinks();
    const refused = await create({ title: 'OAuth', accepts: [pixAccept()] }, tokens.access_token);
    expect([refused.status, refused.body.error.code]).toEqual([403, 'route_scope_unmapped']);
    expect(await countLinks()).toBe(before);
  });

  it('refuses a restricted key with route_scope_unmapped, as every unmapped route does', async () => {
    const restricted = await gw.createKey(acme.projectId, { scopes: ['sessions:read'] });
    const refused = await create({ title: 'Restricted', accepts: [pixAccept()] }, restricted.key);
    expect([refused.status, refused.body.error.code]).toEqual([403, 'route_scope_unmapped']);
  });

  it('lets a service credential write only for an acting admin', async () => {
    const admin = await gw.operator('POST', `/v1/orgs/${acme.orgId}/users`, {
      body: { email: 'admin@acme.test', role: 'admin' },
    });
    const member = await gw.operator('POST', `/v1/orgs/${acme.orgId}/users`, {
      body: { email: 'member@acme.test', role: 'member' },
    });
    const body = { title: 'Svc', accepts: [pixAccept()] };
    const before = await countLinks();
    for (const user of [undefined, member.body.id as string]) {
      const refused = await gw.operator('POST', '/v1/payment-links', { project: acme.projectId, user, body });
      expect([refused.status, refused.body.error.code]).toEqual([403, 'forbidden']);
    }
    expect(await countLinks()).toBe(before);
    const made = await gw.operator('POST', '/v1/payment-links', {
      project: acme.projectId,
      user: admin.body.id,
      body,
    });
    expect(made.status).toBe(201);
  });

  it('lists the links in the OpenAPI document with their schemas', async () => {
    const doc = (await gw.request('GET', '/openapi.json')).body;
    expect(Object.keys(doc.paths['/v1/payment-links'])).toEqual(expect.arrayContaining(['get', 'post']));
    expect(Object.keys(doc.paths['/v1/payment-links/{id}'])).toEqual(
      expect.arrayContaining(['get', 'patch', 'delete']),
    );
    expect(doc.paths['/v1/payment-links'].post.requestBody).toBeDefined();
  });
});
