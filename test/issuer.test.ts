// The deprecated issued-card read through HTTP: an `icrd_` id answers its card, an `imf_` id its mint
// flow, each only in the caller's organization and project, with the deprecation headers.
import { openMintFlow, recordIssuedCard } from '../domain/issuer/cards';
import { startGateway, type Gateway, type Tenant } from './support/harness';

let gw: Gateway;
let acme: Tenant;
let globex: Tenant;

beforeAll(async () => {
  gw = await startGateway({ worker: false });
  acme = await gw.createTenant({ name: 'Acme' });
  globex = await gw.createTenant({ name: 'Globex' });
});
afterAll(async () => gw?.stop());

describe('GET /v1/issuer/cards/{id}', () => {
  it('answers a card by its icrd_ id with the deprecation headers', async () => {
    const card = await recordIssuedCard(gw.db, acme, {
      issuer: 'mock-issuer',
      cardId: 'card_123',
      last4: '4242',
      network: 'visa',
      status: 'active',
    });
    const res = await gw.request('GET', `/v1/issuer/cards/${card.id}`, { key: acme.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: card.id,
      issuer: 'mock-issuer',
      card_id: 'card_123',
      last4: '4242',
      network: 'visa',
      status: 'active',
      created_at: expect.any(String),
    });
    expect(res.headers.get('deprecation')).toMatch(/^@[0-9]+$/);
    expect(res.headers.get('link')).toContain('rel="deprecation"');
  });

  it('answers a mint flow by its imf_ id', async () => {
    const flow = await openMintFlow(gw.db, acme, 'mock-issuer');
    const res = await gw.request('GET', `/v1/issuer/cards/${flow.id}`, { key: acme.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: flow.id, issuer: 'mock-issuer', status: 'pending', card_id: null });
    expect(res.headers.get('deprecation')).toMatch(/^@[0-9]+$/);
  });

  it("refuses another organization's card and mint flow with 404", async () => {
    const card = await recordIssuedCard(gw.db, acme, {
      issuer: 'mock-issuer',
      cardId: 'card_456',
      last4: '1111',
      network: 'mastercard',
      status: 'active',
    });
    const flow = await openMintFlow(gw.db, acme, 'mock-issuer');
    for (const id of [card.id, flow.id]) {
      const res = await gw.request('GET', `/v1/issuer/cards/${id}`, { key: globex.key });
      expect([res.status, res.body.error.code]).toEqual([404, 'not_found']);
      expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
    }
  });

  it("refuses another project's card of the same organization with 404", async () => {
    const project = await gw.operator('POST', '/v1/projects', {
      project: acme.projectId,
      body: { name: 'Second', slug: 'second' },
    });
    expect(project.status).toBe(201);
    const second = await gw.createKey(project.body.id);
    const card = await recordIssuedCard(gw.db, acme, {
      issuer: 'mock-issuer',
      cardId: 'card_789',
      last4: '0005',
      network: 'visa',
      status: 'active',
    });
    const res = await gw.request('GET', `/v1/issuer/cards/${card.id}`, { key: second.key });
    expect([res.status, res.body.error.code]).toEqual([404, 'not_found']);
  });

  it('answers 404 for an id of neither kind and for an unknown id', async () => {
    for (const id of ['card_123', 'icrd_nothing', 'imf_nothing']) {
      const res = await gw.request('GET', `/v1/issuer/cards/${id}`, { key: acme.key });
      expect([res.status, res.body.error.code]).toEqual([404, 'not_found']);
    }
  });
});
