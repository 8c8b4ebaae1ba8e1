// The gateway tools payment_links.create and payment_links.list: a link made through a session is the
// REST route's link (same body, same refusals, same row), an OAuth token never makes one, and a create a
// rule holds is made by the gateway once a person approves.
import { connect } from './support/oauth-flow';
import { startGateway, type Gateway, type Tenant } from './support/harness';

let gw: Gateway;
let acme: Tenant;
beforeAll(async () => {
  gw = await startGateway();
  acme = await gw.createTenant();
});
afterAll(async () => gw?.stop());

const pixAccept = { rail: 'pix', amount: '25.90', currency: 'BRL', pix: { key: 'loja@acme.test' } };
const openSession = async (tenant: Tenant) =>
  (await gw.request('POST', '/v1/sessions', { key: tenant.key, body: { servers: ['gateway'] } })).body
    .id as string;
const call = (key: string, session: string, tool: string, args: Record<string, unknown>) =>
  gw.request('POST', `/v1/sessions/${session}/tool-calls`, { key, body: { tool, arguments: args } });
const restLinks = async (tenant: Tenant) =>
  (await gw.request('GET', '/v1/payment-links', { key: tenant.key })).body.payment_links as Array<{
    id: string;
    slug: string;
  }>;

it('creates a link the REST API then reads, and lists it', async () => {
  const session = await openSession(acme);
  const created = await call(acme.key, session, 'payment_links.create', {
    title: 'Coffee beans',
    slug: 'tool-made-coffee',
    accepts: [pixAccept],
  });
  expect(created.status).toBe(200);
  expect(created.body).toMatchObject({ tool_name: 'payment_links.create', status: 'success' });
  expect(created.body.output).toMatchObject({
    id: expect.any(String),
    slug: 'tool-made-coffee',
    title: 'Coffee beans',
    pay_url: expect.stringMatching(/\/pay\/tool-made-coffee$/),
  });
  const read = await gw.request('GET', `/v1/payment-links/${created.body.output.id}`, { key: acme.key });
  expect(read.status).toBe(200);
  expect(read.body).toMatchObject({ slug: 'tool-made-coffee', title: 'Coffee beans' });

  const listed = await call(acme.key, session, 'payment_links.list', {});
  expect(listed.status).toBe(200);
  expect(listed.body.output.payment_links.map((l: { slug: string }) => l.slug)).toContain('tool-made-coffee');
});

it('refuses what the route refuses, creating nothing', async () => {
  const tenant = await gw.createTenant();
  const session = await openSession(tenant);
  const twice = await call(tenant.key, session, 'payment_links.create', {
    title: 'Twice',
    accepts: [pixAccept, pixAccept],
  });
  expect([twice.status, twice.body.error?.code ?? twice.body.error_code]).toEqual([400, 'invalid_rail']);
  const taken = await call(tenant.key, session, 'payment_links.create', {
    title: 'Taken',
    slug: 'tool-made-coffee',
    accepts: [pixAccept],
  });
  expect([taken.status, taken.body.error?.code ?? taken.body.error_code]).toEqual([409, 'slug_conflict']);
  expect(await restLinks(tenant)).toEqual([]);
});

it('refuses an OAuth token with 403 forbidden and creates nothing', async () => {
  const tenant = await gw.createTenant();
  const { tokens } = await connect(gw, tenant.key);
  const opened = await gw.request('POST', '/v1/sessions', {
    key: tokens.access_token,
    body: { servers: ['gateway'] },
  });
  expect(opened.status).toBe(201);
  const refused = await call(tokens.access_token, opened.body.id, 'payment_links.create', {
    title: 'By token',
    accepts: [pixAccept],
  });
  expect([refused.status, refused.body.error.code]).toEqual([403, 'forbidden']);
  expect(await restLinks(tenant)).toEqual([]);
});

it('makes a held create once a person approves', async () => {
  const tenant = await gw.createTenant();
  await gw.request('POST', '/v1/policies', {
    key: tenant.key,
    body: { name: 'links need a person', type: 'approval-required', tools: ['payment_links.*'], config: {} },
  });
  const session = await openSession(tenant);
  const held = await call(tenant.key, session, 'payment_links.create', {
    title: 'Held link',
    accepts: [pixAccept],
  });
  expect(held.status).toBe(403);
  expect(held.body).toMatchObject({ reason: 'approval_required' });
  expect(await restLinks(tenant)).toEqual([]);
  const approvalId = held.body.approval_id;
  const decided = await gw.operator('POST', `/v1/orgs/${tenant.orgId}/approvals/${approvalId}/decide`, {
    user: 'alice',
    body: { decision: 'approve' },
  });
  expect(decided.status).toBe(200);
  let status = await gw.request('GET', `/v1/approvals/${approvalId}/status`, { key: tenant.key });
  while (status.body.executed_at === null)
    status = await gw.request('GET', `/v1/approvals/${approvalId}/status`, { key: tenant.key });
  expect(status.body.execution_result).toMatchObject({ error_code: null, output: { title: 'Held link' } });
  const links = await restLinks(tenant);
  expect(links.map((l) => l.id)).toEqual([status.body.execution_result.output.id]);
});
