// Cart connect through HTTP against the mock browser worker (a real HTTP server): a start records a
// pending session on a fresh context, a failing worker answers 502 and a retry mints a new context, no
// worker is a terminal 503, and the finish is single-use and only for the project that started it.
import { sql } from 'slonik';
import { z } from 'zod';
import type { BrowserWorkerMock } from '../providers/mocks/browser-worker';
import { startGateway, type Gateway, type Tenant } from './support/harness';

let gw: Gateway;
let acme: Tenant;
let globex: Tenant;
let worker: BrowserWorkerMock;

beforeAll(async () => {
  gw = await startGateway({ worker: false });
  acme = await gw.createTenant({ name: 'Acme' });
  globex = await gw.createTenant({ name: 'Globex' });
  worker = gw.mocks.browser_worker as BrowserWorkerMock;
});
afterAll(async () => gw?.stop());
afterEach(() => worker.setLiveView('url'));

const sessions = (orgId: string) =>
  gw.db.any(
    sql.type(
      z.object({ merchant: z.string(), context_id: z.string(), session_id: z.string(), status: z.string() }),
    )`SELECT merchant, context_id, session_id, status FROM cart_connect_sessions WHERE org_id = ${orgId} ORDER BY created_at`,
  );
const start = (merchant: string, key = acme.key) =>
  gw.request('POST', `/v1/cart/${merchant}/connect/start`, { key });
const finish = (merchant: string, contextId: string, key = acme.key) =>
  gw.request('POST', `/v1/cart/${merchant}/connect/finish`, { key, body: { context_id: contextId } });

describe('starting a connect', () => {
  it('opens a Mercado Livre session on a new context and records it pending', async () => {
    const res = await start('meli');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      merchant: 'meli',
      context_id: expect.stringMatching(/^ctx_/),
      session_id: expect.stringMatching(/^sess_/),
      live_view_url: expect.stringContaining(res.body.session_id),
    });
    const seen = worker.sessions().find((s) => s.id === res.body.session_id)!;
    expect(seen).toMatchObject({ context_id: res.body.context_id, status: 'running' });
    expect(seen.start_url).toContain('mercadolivre');
    expect(await sessions(acme.orgId)).toContainEqual({
      merchant: 'meli',
      context_id: res.body.context_id,
      session_id: res.body.session_id,
      status: 'pending',
    });
  });

  it('answers iFood with checkout_supported false and a note', async () => {
    const res = await start('ifood');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      merchant: 'ifood',
      checkout_supported: false,
      note: expect.any(String),
    });
    expect(res.body.note.length).toBeGreaterThan(0);
  });

  it('answers 200 with an empty live_view_url when the worker offers no live view', async () => {
    worker.setLiveView('empty');
    const res = await start('meli');
    expect([res.status, res.body.live_view_url]).toEqual([200, '']);
  });

  it('answers 502 when the worker fails, records nothing, and a retry mints a new context', async () => {
    const before = (await sessions(acme.orgId)).length;
    const contextsBefore = worker.contexts().length;
    worker.failNext('session');
    const failed = await start('meli');
    expect([failed.status, failed.body.error.code]).toEqual([502, 'browser_worker_failed']);
    worker.failNext('context');
    const failedAgain = await start('ifood');
    expect([failedAgain.status, failedAgain.body.error.code]).toEqual([502, 'browser_worker_failed']);
    expect(await sessions(acme.orgId)).toHaveLength(before);

    const retried = await start('meli');
    expect(retried.status).toBe(200);
    // The failed session step had minted a context; the retry did not reuse it.
    const abandoned = worker.contexts()[contextsBefore];
    expect(retried.body.context_id).not.toBe(abandoned);
    expect(worker.contexts().length).toBe(contextsBefore + 2);
  });

  it('answers 502 when the pending session cannot be recorded, and a retry mints a new context', async () => {
    const first = await start('meli');
    expect(first.status).toBe(200);
    // A faulty worker hands out a context that is already recorded: the session cannot be recorded.
    worker.repeatNextContext();
    const clash = await start('meli');
    expect([clash.status, clash.body.error.code]).toEqual([502, 'connect_not_recorded']);
    const retried = await start('meli');
    expect(retried.status).toBe(200);
    expect(retried.body.context_id).not.toBe(first.body.context_id);
    const rows = (await sessions(acme.orgId)).filter((s) => s.context_id === first.body.context_id);
    expect(rows).toHaveLength(1);
  });

  it('answers 503 without a configured browser worker, every time, and records nothing', async () => {
    const url = gw.config.providerUrls.browser_worker;
    delete gw.config.providerUrls.browser_worker;
    try {
      const before = (await sessions(acme.orgId)).length;
      for (const merchant of ['meli', 'ifood', 'meli']) {
        const res = await start(merchant);
        expect([res.status, res.body.error.code]).toEqual([503, 'browser_worker_unavailable']);
      }
      expect(await sessions(acme.orgId)).toHaveLength(before);
    } finally {
      gw.config.providerUrls.browser_worker = url;
    }
  });
});

describe('finishing a connect', () => {
  it('connects once, releases the worker session, and refuses a second finish', async () => {
    const started = await start('meli');
    const done = await finish('meli', started.body.context_id);
    expect(done.status).toBe(200);
    expect(done.body).toEqual({
      merchant: 'meli',
      context_id: started.body.context_id,
      status: 'connected',
      connected_at: expect.any(String),
    });
    expect(worker.sessions().find((s) => s.id === started.body.session_id)!.status).toBe('released');
    const again = await finish('meli', started.body.context_id);
    expect([again.status, again.body.error.code]).toEqual([409, 'connect_already_finished']);
  });

  it('lets exactly one of two racing finishes win', async () => {
    const started = await start('ifood');
    const answers = await Promise.all([
      finish('ifood', started.body.context_id),
      finish('ifood', started.body.context_id),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
  });

  it("refuses another organization's or project's finish with 404 and leaves the connect to its owner", async () => {
    const started = await start('meli');
    const foreign = await finish('meli', started.body.context_id, globex.key);
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'not_found']);
    const project = await gw.operator('POST', '/v1/projects', {
      project: acme.projectId,
      body: { name: 'Other', slug: 'other' },
    });
    const sibling = await gw.createKey(project.body.id);
    const sameOrg = await finish('meli', started.body.context_id, sibling.key);
    expect([sameOrg.status, sameOrg.body.error.code]).toEqual([404, 'not_found']);
    const wrongMerchant = await finish('ifood', started.body.context_id);
    expect([wrongMerchant.status, wrongMerchant.body.error.code]).toEqual([404, 'not_found']);
    expect((await sessions(acme.orgId)).find((s) => s.context_id === started.body.context_id)!.status).toBe(
      'pending',
    );
    expect((await finish('meli', started.body.context_id)).status).toBe(200);
  });

  it('refuses a lapsed connect with 410 and an unknown merchant or bad body with 400', async () => {
    const started = await start('meli');
    await gw.db.query(
      sql.unsafe`UPDATE cart_connect_sessions SET expires_at = now() - interval '1 second' WHERE context_id = ${started.body.context_id}`,
    );
    const lapsed = await finish('meli', started.body.context_id);
    expect([lapsed.status, lapsed.body.error.code]).toEqual([410, 'connect_expired']);
    const merchant = await finish('amazon', started.body.context_id);
    expect(merchant.status).toBe(400);
    const body = await gw.request('POST', '/v1/cart/meli/connect/finish', { key: acme.key, body: {} });
    expect([body.status, body.body.error.code]).toEqual([400, 'invalid_body']);
  });
});
