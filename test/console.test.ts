// The operator console in a real browser (Debian's Chromium, driven by playwright-core) and over plain
// HTTP: an operator signs in with the service token, approves a policy-held wallet execute and the held
// payment completes (on both Temporal servers); stuck attempts link to their workflow in the Temporal UI;
// open anomalies and endpoints in error are listed; forged posts, API keys and bearer headers get nowhere.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { sql } from 'slonik';
import type { PaymentsMock } from '../providers/mocks/payments';
import { launchChromium } from './support/browser';
import { emitEvent } from './support/events';
import { startGateway, TEMPORAL_SERVERS, type Gateway, type Tenant } from './support/harness';
import { fund, newWallet } from './support/money';
import { startReceiver, type Receiver } from './support/receiver';

const TEMPORAL_UI = 'http://127.0.0.1:8233';
let browser: Browser;
beforeAll(async () => { browser = await launchChromium(); }, 60_000);
afterAll(async () => { await browser?.close(); });

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
async function heldExecute(gw: Gateway): Promise<{ t: Tenant; wallet: string; attempt: string; approvalId: string; ruleId: string }> {
  const t = await gw.createTenant();
  const rule = await gw.request('POST', '/v1/policies', { key: t.key, body: { name: 'big spends', type: 'approval-required', config: { above_minor: '5000', currency: 'BRL' } } });
  const wallet = await newWallet(gw, t, { agent_id: 'shopper' });
  await fund(gw, t, wallet, 100_000);
  const attempt = attemptId();
  const held = await gw.request('POST', `/v1/wallets/${wallet}/execute`, {
    key: t.key, body: { amount: 120, currency: 'BRL', recipient: 'vendor-9', description: 'Server rack', mandate_id: 'mdt_1', attempt_id: attempt },
  });
  expect(held.status).toBe(403);
  return { t, wallet, attempt, approvalId: held.body.approval_id, ruleId: rule.body.id };
}

const approvalStatus = async (gw: Gateway, t: Tenant, id: string) => (await gw.request('GET', `/v1/approvals/${id}/status`, { key: t.key })).body;

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

const decideForm = (gw: Gateway, orgId: string, id: string, fields: Record<string, string>, headers: Record<string, string>) =>
  gw.request('POST', `/console/orgs/${orgId}/approvals/${id}/decide`, {
    raw: new URLSearchParams(fields).toString(), headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
  });

describe.each(TEMPORAL_SERVERS)('deciding from the console on the %s Temporal server', (server) => {
  let gw: Gateway;
  beforeAll(async () => { gw = await startGateway({ temporal: server }); }, 120_000);
  afterAll(async () => { await gw?.stop(); });

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
    await Promise.all([page.waitForURL(`${gw.url}/console/orgs/**`), row.locator('button[value=approve]').click()]);
    expect(await page.textContent('#message')).toContain(`${approvalId} is approved`);

    const done = await until(() => approvalStatus(gw, t, approvalId), (s) => s.executed_at !== null, 'the approved replay');
    expect(done).toMatchObject({ approval_status: 'approved', decided_by: 'user:alice', decision_reason: 'budgeted for Q4' });
    expect(done.execution_result).toMatchObject({ status: 'completed', attempt_id: attempt });
    const mock = gw.mocks.payments as PaymentsMock;
    expect(mock.payments().filter((p) => p.reference === attempt)).toHaveLength(1);
    expect((await gw.request('GET', `/v1/wallets/${wallet}`, { key: t.key })).body.balances[0]).toMatchObject({ balance_minor: '88000' });

    await page.click('#back');
    expect(await page.locator(`#approval-${approvalId}`).count()).toBe(0);
    await page.close();
  });
});
