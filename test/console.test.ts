// The operator console in a real browser (Debian's Chromium, driven by playwright-core) and over plain
// HTTP: an operator signs in with the service token, approves a policy-held wallet execute and the held
// payment completes (on both Temporal servers); stuck attempts link to their workflow in the Temporal UI;
// open anomalies and endpoints in error are listed; forged posts, API keys and bearer headers get nowhere.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { sql } from 'slonik';
import type { PaymentsMock } from '../providers/mocks/payments';
import type { PixPspMock } from '../providers/mocks/pix-psp';
import { launchChromium } from './support/browser';
import { pixSpend, readyConsumer } from './support/consumer-spend';
import { emitEvent } from './support/events';
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';
import { fund, newWallet } from './support/money';
import { startReceiver, type Receiver } from './support/receiver';

const TEMPORAL_UI = 'http://127.0.0.1:8233';
let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

let n = 0;
const attemptId = () => `console-att-${Date.now()}-${++n}`;

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 300; i += 1) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** A tenant whose wallet execute above 50.00 BRL waits for a human, and a held execute of 120.00 BRL. */
async function heldExecute(
  gw: Gateway,
): Promise<{ t: Tenant; wallet: string; attempt: string; approvalId: string; ruleId: string }> {
  const t = await gw.createTenant();
  const rule = await gw.request('POST', '/v1/policies', {
    key: t.key,
    body: { name: 'big spends', type: 'approval-required', config: { above_minor: '5000', currency: 'BRL' } },
  });
  const wallet = await newWallet(gw, t, { agent_id: 'shopper' });
  await fund(gw, t, wallet, 100_000);
  const attempt = attemptId();
  const held = await gw.request('POST', `/v1/wallets/${wallet}/execute`, {
    key: t.key,
    body: {
      amount: 120,
      currency: 'BRL',
      recipient: 'vendor-9',
      description: 'Server rack',
      mandate_id: 'mdt_1',
      attempt_id: attempt,
    },
  });
  expect(held.status).toBe(403);
  return { t, wallet, attempt, approvalId: held.body.approval_id, ruleId: rule.body.id };
}

const approvalStatus = async (gw: Gateway, t: Tenant, id: string) =>
  (await gw.request('GET', `/v1/approvals/${id}/status`, { key: t.key })).body;

async function signIn(gw: Gateway, context?: BrowserContext): Promise<Page> {
  const page = await (context ?? browser).newPage();
  await page.goto(`${gw.url}/console`);
  expect(page.url()).toBe(`${gw.url}/console/login`);
  await page.fill('#operator', 'alice');
  await page.fill('#token', gw.serviceToken);
  await Promise.all([page.waitForURL(`${gw.url}/console`), page.click('#sign-in')]);
  expect(await page.textContent('#operator')).toBe('alice');
  return page;
}

/** Signs in over HTTP as a browser would, returning the cookie header and the form token of the session. */
async function httpSession(gw: Gateway): Promise<{ cookie: string; csrf: string }> {
  const login = await gw.request('POST', '/console/login', {
    raw: new URLSearchParams({ operator: 'bob', token: gw.serviceToken }).toString(),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: gw.url },
  });
  expect(login.status).toBe(303);
  const cookie = login.headers.get('set-cookie')!.split(';')[0];
  const page = await gw.request('GET', '/console', { headers: { Cookie: cookie } });
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)![1];
  return { cookie, csrf };
}

const decideForm = (
  gw: Gateway,
  orgId: string,
  id: string,
  fields: Record<string, string>,
  headers: Record<string, string>,
) =>
  gw.request('POST', `/console/orgs/${orgId}/approvals/${id}/decide`, {
    raw: new URLSearchParams(fields).toString(),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
  });

describe.each(TEMPORAL_SERVERS)('deciding from the console on the %s Temporal server', (server) => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway({ temporal: server });
  }, 120_000);
  afterAll(async () => {
    await gw?.stop();
  });

  it('shows a held wallet execute with its rule, approves it with a reason, and the held payment completes', async () => {
    const { t, wallet, attempt, approvalId } = await heldExecute(gw);
    const page = await signIn(gw);
    const row = page.locator(`#approval-${approvalId}`);
    expect(await row.locator('.tool').textContent()).toBe('wallet.execute');
    expect(await row.locator('.amount').textContent()).toBe('120.00 BRL');
    expect(await row.locator('.payee').textContent()).toBe('vendor-9');
    expect(await row.locator('.rule').textContent()).toContain('big spends (approval-required)');
    expect(await row.locator('.reason').textContent()).toBe('approval_required');

    await row.locator('input[name=reason]').fill('budgeted for Q4');
    await Promise.all([
      page.waitForURL(`${gw.url}/console/orgs/**`),
      row.locator('button[value=approve]').click(),
    ]);
    expect(await page.textContent('#message')).toContain(`${approvalId} is approved`);

    const done = await until(
      () => approvalStatus(gw, t, approvalId),
      (s) => s.executed_at !== null,
      'the approved replay',
    );
    expect(done).toMatchObject({
      approval_status: 'approved',
      decided_by: 'user:alice',
      decision_reason: 'budgeted for Q4',
    });
    expect(done.execution_result).toMatchObject({ status: 'completed', attempt_id: attempt });
    const mock = gw.mocks.payments as PaymentsMock;
    expect(mock.payments().filter((p) => p.reference === attempt)).toHaveLength(1);
    expect((await gw.request('GET', `/v1/wallets/${wallet}`, { key: t.key })).body.balances[0]).toMatchObject(
      { balance_minor: '88000' },
    );

    await page.click('#back');
    expect(await page.locator(`#approval-${approvalId}`).count()).toBe(0);
    await page.close();
  });
});

describe('the console on the time-skipping Temporal server', () => {
  let gw: Gateway;
  let receiver: Receiver;
  let attacker: Server;
  let attackerUrl: string;
  let attackerPage = '';
  beforeAll(async () => {
    // The Temporal UI the links point at, a one-retry schedule so a failing endpoint reaches `error` soon,
    // and a short provider timeout so an unanswered Pix dispatch turns uncertain soon.
    const settings = {
      TEMPORAL_UI_URL: TEMPORAL_UI,
      WEBHOOK_RETRY_SCHEDULE: '100ms',
      PROVIDER_TIMEOUT_MS: '1500',
    };
    const saved = Object.fromEntries(Object.keys(settings).map((name) => [name, process.env[name]]));
    Object.assign(process.env, settings);
    try {
      gw = await startGateway();
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    receiver = await startReceiver();
    // Another origin on loopback (the same site, so a SameSite=Strict cookie still rides along) serving a forging page.
    attacker = createServer((_req, res) =>
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(attackerPage),
    );
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
  }, 120_000);
  afterAll(async () => {
    await new Promise<void>((resolve) => (attacker ? attacker.close(() => resolve()) : resolve()));
    await receiver?.stop();
    await gw?.stop();
  });

  it('lists a wallet execute stuck past the threshold with a link to its workflow, and drops it once it completes', async () => {
    const t = await gw.createTenant();
    const wallet = await newWallet(gw, t);
    await fund(gw, t, wallet, 10_000);
    const attempt = attemptId();
    const body = {
      amount: 10,
      currency: 'BRL',
      recipient: 'shop',
      description: 'thing',
      mandate_id: 'mdt_1',
      attempt_id: attempt,
    };
    await gw.stopWorker();
    const pending = gw.request('POST', `/v1/wallets/${wallet}/execute`, { key: t.key, body });
    await until(
      () =>
        gw.db.exists(
          sql.unsafe`SELECT 1 FROM spend_attempts WHERE org_id = ${t.orgId} AND attempt_id = ${attempt}`,
        ),
      Boolean,
      'the claimed attempt',
    );

    const page = await signIn(gw);
    // Younger than the five-minute threshold, it is not stuck yet.
    expect(await page.locator(`#stuck-${attempt}`).count()).toBe(0);
    await gw.db.query(
      sql.unsafe`UPDATE spend_attempts SET created_at = created_at - interval '6 minutes' WHERE org_id = ${t.orgId} AND attempt_id = ${attempt}`,
    );
    await page.reload();
    const row = page.locator(`#stuck-${attempt}`);
    expect(await row.locator('.status').textContent()).toBe('processing');
    const link = row.locator('a.workflow');
    expect(await link.textContent()).toBe(`spend/${t.orgId}/${attempt}`);
    expect(await link.getAttribute('href')).toBe(
      `${TEMPORAL_UI}/namespaces/default/workflows/${encodeURIComponent(`spend/${t.orgId}/${attempt}`)}`,
    );

    await gw.startWorker();
    let answer = await pending;
    for (let i = 0; i < 10 && answer.status === 409; i += 1)
      answer = await gw.request('POST', `/v1/wallets/${wallet}/execute`, { key: t.key, body });
    expect(answer.body.status).toBe('completed');
    await page.reload();
    expect(await page.locator(`#stuck-${attempt}`).count()).toBe(0);
    await page.close();
  });

  it('lists a consumer spend left psp_dispatch_uncertain past the threshold, until the same attempt is presented again', async () => {
    const t = await gw.createTenant();
    const c = await readyConsumer(gw, t, { fundMinor: 10_000 });
    const body = pixSpend(c, { amount_minor: 3_000 });
    (gw.mocks.pix_psp as unknown as PixPspMock).script(body.attempt_id, { outcome: 'timeout' });
    const execute = () => gw.request('POST', '/v1/consumer-payments/execute', { key: t.key, body });
    const uncertain = await execute();
    expect([uncertain.status, uncertain.body.error.code]).toEqual([502, 'psp_dispatch_uncertain']);
    await gw.db.query(
      sql.unsafe`UPDATE consumer_spend_attempts SET created_at = created_at - interval '6 minutes' WHERE org_id = ${t.orgId} AND attempt_id = ${body.attempt_id}`,
    );

    const page = await signIn(gw);
    const row = page.locator(`#stuck-${body.attempt_id}`);
    expect(await row.locator('.status').textContent()).toBe('dispatch_uncertain');
    const workflowId = `consumer-spend/${t.orgId}/${body.attempt_id}`;
    expect(await row.locator('a.workflow').getAttribute('href')).toBe(
      `${TEMPORAL_UI}/namespaces/default/workflows/${encodeURIComponent(workflowId)}`,
    );

    let resolved = await execute();
    for (let i = 0; i < 10 && resolved.status === 409; i += 1) resolved = await execute();
    expect(resolved.body.status).toBe('completed');
    await page.reload();
    expect(await page.locator(`#stuck-${body.attempt_id}`).count()).toBe(0);
    await page.close();
  });

  it('lists open reconciliation anomalies and webhook endpoints in error, and narrows them to one organization', async () => {
    const t = await gw.createTenant();
    const other = await gw.createTenant();
    const mock = gw.mocks.payments as PaymentsMock;
    mock.addSettlement({
      payment_id: `mpay_console_${++n}`,
      reference: 'r',
      amount_minor: '777',
      currency: 'BRL',
      settled_at: new Date().toISOString(),
      metadata: { org_id: t.orgId, project_id: t.projectId },
    });
    expect((await gw.request('POST', '/v1/wallet-reconciliations', { key: t.key })).status).toBe(201);
    const [anomaly] = (await gw.request('GET', '/v1/wallet-anomalies?status=open', { key: t.key })).body
      .anomalies;

    await gw.request('PATCH', `/v1/projects/${t.projectId}/settings`, {
      key: t.key,
      body: { webhook_auto_pause_after: 1 },
    });
    receiver.answer = () => ({ status: 500, body: 'down' });
    const endpoint = await gw.request('POST', '/v1/webhook-endpoints', {
      key: t.key,
      body: {
        name: 'ledger sync',
        event: 'ledger.entry_posted',
        webhook_url: `${receiver.url}/hooks?token=tenant-secret`,
      },
    });
    expect(endpoint.status).toBe(201);
    await emitEvent(gw, t, 'ledger.entry_posted', { n: 1 });
    await until(
      () => gw.request('GET', `/v1/webhook-endpoints/${endpoint.body.id}`, { key: t.key }),
      (r) => r.body.status === 'error',
      'the endpoint to reach error',
    );

    const page = await signIn(gw);
    const anomalyRow = page.locator(`#anomaly-${anomaly.id}`);
    expect(await anomalyRow.locator('.kind').textContent()).toBe('receipt_without_debit');
    expect(await anomalyRow.textContent()).toContain('7.77 BRL');
    const endpointRow = page.locator(`#endpoint-${endpoint.body.id}`);
    expect(await endpointRow.locator('.reason').textContent()).toBe('consecutive_dead');
    expect(await endpointRow.textContent()).toContain(`${receiver.url}/hooks`);
    // The receiver URL's query may carry the tenant's own token: the console leaves it out.
    expect(await endpointRow.textContent()).not.toContain('tenant-secret');

    await page.fill('#org', other.orgId);
    await Promise.all([
      page.waitForURL(`${gw.url}/console?org=${other.orgId}`),
      page.click('#filter button'),
    ]);
    expect(await page.locator(`#anomaly-${anomaly.id}`).count()).toBe(0);
    expect(await page.locator(`#endpoint-${endpoint.body.id}`).count()).toBe(0);
    await page.goto(`${gw.url}/console?org=${t.orgId}`);
    expect(await page.locator(`#anomaly-${anomaly.id}`).count()).toBe(1);
    const bad = await page.goto(`${gw.url}/console?org=${encodeURIComponent('<b>x</b>')}`);
    expect(bad?.status()).toBe(400);
    await page.close();
  });

  it('refuses a decide posted from another site or without the form token, and the approval stays pending', async () => {
    const { t, attempt, approvalId } = await heldExecute(gw);
    const context = await browser.newContext();
    const page = await signIn(gw, context);
    const csrf = await page.locator('input[name=csrf]').first().getAttribute('value');
    const forge = async (fields: Record<string, string>) => {
      attackerPage = `<!doctype html><form method="post" action="${gw.url}/console/orgs/${t.orgId}/approvals/${approvalId}/decide">${Object.entries(
        fields,
      )
        .map(([name, value]) => `<input type="hidden" name="${name}" value="${value}">`)
        .join('')}<button id="go">Win a prize</button></form>`;
      await page.goto(attackerUrl);
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.url().includes('/decide')),
        page.click('#go'),
      ]);
      return { status: response.status(), message: await page.textContent('#message') };
    };
    // Without the token, and even with a leaked one: the browser says the post comes from another origin of the same site.
    const refusal = { status: 403, message: 'Nothing was changed: the request came from a same-site page.' };
    expect(await forge({ decision: 'approve', reason: 'free money' })).toEqual(refusal);
    expect(await forge({ decision: 'approve', reason: 'free money', csrf: csrf! })).toEqual(refusal);
    await context.close();

    const { cookie, csrf: httpCsrf } = await httpSession(gw);
    const fields = { decision: 'approve', reason: 'forged' };
    for (const [headers, form] of [
      [{ Cookie: cookie }, { ...fields, csrf: httpCsrf }],
      [
        { Cookie: cookie, Origin: 'https://evil.example' },
        { ...fields, csrf: httpCsrf },
      ],
      [{ Cookie: cookie, Origin: gw.url }, fields],
      [
        { Cookie: cookie, Origin: gw.url },
        { ...fields, csrf: 'A'.repeat(43) },
      ],
      [
        { Cookie: cookie, Origin: gw.url, 'Sec-Fetch-Site': 'cross-site' },
        { ...fields, csrf: httpCsrf },
      ],
    ] as Array<[Record<string, string>, Record<string, string>]>) {
      const refused = await decideForm(gw, t.orgId, approvalId, form, headers);
      expect([refused.status, refused.text.includes('Nothing was changed')]).toEqual([403, true]);
    }
    expect((await approvalStatus(gw, t, approvalId)).approval_status).toBe('pending');
    expect(
      (gw.mocks.payments as PaymentsMock).requests().filter((q) => q.reference === attempt),
    ).toHaveLength(0);

    // The same post from the console itself goes through.
    const denied = await decideForm(
      gw,
      t.orgId,
      approvalId,
      { decision: 'deny', reason: 'not budgeted', csrf: httpCsrf },
      { Cookie: cookie, Origin: gw.url },
    );
    expect(denied.status).toBe(200);
    expect(await approvalStatus(gw, t, approvalId)).toMatchObject({
      approval_status: 'denied',
      decided_by: 'user:bob',
      decision_reason: 'not budgeted',
    });
    const again = await decideForm(
      gw,
      t.orgId,
      approvalId,
      { decision: 'approve', reason: 'changed my mind', csrf: httpCsrf },
      { Cookie: cookie, Origin: gw.url },
    );
    expect([again.status, again.text.includes('approval_not_pending')]).toEqual([409, true]);
  });

  it('takes no API key or bearer credential: pages send to sign-in, posts answer 401, and a pasted key does not sign in', async () => {
    const { t, approvalId } = await heldExecute(gw);
    for (const key of [t.key, gw.serviceToken]) {
      const page = await gw.request('GET', '/console', { key });
      expect([page.status, page.headers.get('location')]).toEqual([303, '/console/login']);
      const post = await decideForm(
        gw,
        t.orgId,
        approvalId,
        { decision: 'approve', reason: 'by key' },
        { Authorization: `Bearer ${key}`, Origin: gw.url },
      );
      expect(post.status).toBe(401);
    }
    for (const token of [t.key, 'x'.repeat(gw.serviceToken.length)]) {
      const login = await gw.request('POST', '/console/login', {
        raw: new URLSearchParams({ operator: 'mallory', token }).toString(),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: gw.url },
      });
      expect([login.status, login.headers.get('set-cookie')]).toEqual([401, null]);
      expect(login.text).toContain('That is not the service token.');
    }
    expect((await approvalStatus(gw, t, approvalId)).approval_status).toBe('pending');
  });

  it('sends a strict CSP, no framing and no referrer, escapes what tenants wrote, ends sessions when the token rotates, and signs out for good', async () => {
    const t = await gw.createTenant();
    await gw.request('POST', '/v1/policies', {
      key: t.key,
      body: { name: '<i>rule</i>', type: 'approval-required', config: { above_minor: '0', currency: 'BRL' } },
    });
    const wallet = await newWallet(gw, t);
    await fund(gw, t, wallet, 10_000);
    const held = await gw.request('POST', `/v1/wallets/${wallet}/execute`, {
      key: t.key,
      body: {
        amount: 1,
        currency: 'BRL',
        recipient: '<img src=x id=injected>',
        description: 'x',
        mandate_id: 'mdt_1',
        attempt_id: attemptId(),
      },
    });
    expect(held.status).toBe(403);

    const { cookie, csrf } = await httpSession(gw);
    for (const response of [
      await gw.request('GET', '/console/login'),
      await gw.request('GET', '/console', { headers: { Cookie: cookie } }),
    ]) {
      expect(response.headers.get('content-security-policy')).toMatch(
        /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'$/,
      );
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      expect(response.headers.get('cache-control')).toBe('no-store');
    }
    const page = await gw.request('GET', '/console', { headers: { Cookie: cookie } });
    expect(page.text).toContain('&lt;img src=x id=injected&gt;');
    expect(page.text).toContain('&lt;i&gt;rule&lt;/i&gt;');
    expect(page.text).not.toContain('<img');

    const login = await gw.request('POST', '/console/login', {
      raw: new URLSearchParams({ operator: 'carol', token: gw.serviceToken }).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: gw.url },
    });
    expect(login.headers.get('set-cookie')).toMatch(
      /^gw_console=[A-Za-z0-9_-]{43}; Path=\/console; Max-Age=28800; HttpOnly; SameSite=Strict$/,
    );
    const value = login.headers.get('set-cookie')!.split(';')[0].split('=')[1];
    // Only a hash of the cookie is stored.
    expect(await gw.db.exists(sql.unsafe`SELECT 1 FROM console_sessions WHERE token_hash = ${value}`)).toBe(
      false,
    );
    expect(await gw.db.exists(sql.unsafe`SELECT 1 FROM console_sessions WHERE operator = 'carol'`)).toBe(
      true,
    );

    // Behind an https public URL the cookie is Secure as well.
    gw.config.publicBaseUrl = 'https://gateway.example';
    try {
      const secure = await gw.request('POST', '/console/login', {
        raw: new URLSearchParams({ operator: 'carol', token: gw.serviceToken }).toString(),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: 'https://gateway.example' },
      });
      expect(secure.headers.get('set-cookie')).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
    } finally {
      gw.config.publicBaseUrl = undefined;
    }

    // Rotating the service token ends the sessions opened with the old one.
    const serviceToken = gw.config.serviceToken;
    gw.config.serviceToken = 'r'.repeat(48);
    try {
      expect(
        (await gw.request('GET', '/console', { headers: { Cookie: cookie } })).headers.get('location'),
      ).toBe('/console/login');
    } finally {
      gw.config.serviceToken = serviceToken;
    }

    const forgedLogout = await gw.request('POST', '/console/logout', {
      raw: 'csrf=nope',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie, Origin: gw.url },
    });
    expect(forgedLogout.status).toBe(403);
    expect((await gw.request('GET', '/console', { headers: { Cookie: cookie } })).status).toBe(200);
    const logout = await gw.request('POST', '/console/logout', {
      raw: `csrf=${csrf}`,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie, Origin: gw.url },
    });
    expect([logout.status, logout.headers.get('location')]).toEqual([303, '/console/login']);
    expect(logout.headers.get('set-cookie')).toMatch(/^gw_console=; Path=\/console; Max-Age=0/);
    const after = await gw.request('GET', '/console', { headers: { Cookie: cookie } });
    expect([after.status, after.headers.get('location')]).toEqual([303, '/console/login']);
  });
});
