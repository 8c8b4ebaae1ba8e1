import { startGateway, type Gateway } from './support/harness';

let gw: Gateway;
beforeAll(async () => { gw = await startGateway(); });
afterAll(async () => { await gw?.stop(); });

it('answers whoami', async () => {
  const t = await gw.createTenant();
  const r = await gw.request('GET', '/v1/whoami', { key: t.key });
  expect(r.status).toBe(200);
  expect(r.body.project.id).toBe(t.projectId);
  const p = await gw.operator('GET', '/v1/ops/readiness');
  expect(p.status).toBe(200);
});
