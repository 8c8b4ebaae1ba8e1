// The consent page in a real browser (Debian's Chromium, driven by playwright-core): a person opens
// the authorization URL, pastes an API key, approves, and lands on the client's loopback redirect
// receiver, whose code the client then exchanges for tokens.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './support/browser';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { authorizePath, exchangeCode, pkce, registerClient } from './support/oauth-flow';

let gw: Gateway;
let tenant: Tenant;
let browser: Browser;
let receiver: Server;
let receiverUrl: string;
const received: URL[] = [];

beforeAll(async () => {
  gw = await startGateway({ worker: false });
  tenant = await gw.createTenant({ name: 'Acme' });
  browser = await launchChromium();
  // The client's redirect receiver, as a native app or CLI runs one on loopback.
  receiver = createServer((req, res) => {
    received.push(new URL(req.url ?? '/', receiverUrl));
    res
      .writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
      .end('<!doctype html><title>Connected</title><p>You can close this window.</p>');
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
  await gw?.stop();
});

async function openConsent(options: {
  name: string;
  scope?: string;
  state?: string;
}): Promise<{ page: Page; clientId: string; verifier: string; redirectUri: string }> {
  const redirectUri = `${receiverUrl}/callback`;
  const clientId = await registerClient(gw, { client_name: options.name, redirect_uris: [redirectUri] });
  const pair = pkce();
  const page = await browser.newPage();
  const response = await page.goto(
    `${gw.url}${authorizePath({ clientId, challenge: pair.challenge, redirectUri, scope: options.scope, state: options.state })}`,
  );
  expect(response?.status()).toBe(200);
  return { page, clientId, verifier: pair.verifier, redirectUri };
}

it('lets a person approve a client by pasting a key, and the client exchanges the code for a working token', async () => {
  const { page, clientId, verifier, redirectUri } = await openConsent({
    name: 'Research Agent',
    scope: 'sessions:read servers:read',
    state: 'st-42',
  });
  expect(await page.title()).toBe('Authorize Research Agent');
  expect(await page.locator('#client-name').textContent()).toBe('Research Agent');
  const scopes = await page.locator('#scopes li code').allTextContents();
  expect(scopes).toEqual(['sessions:read', 'servers:read']);
  expect(await page.locator('#redirect-uri').textContent()).toBe(redirectUri);

  await page.fill('#api_key', tenant.key);
  await Promise.all([page.waitForURL(`${receiverUrl}/callback**`), page.click('#approve')]);
  expect(await page.textContent('p')).toBe('You can close this window.');

  const landed = new URL(page.url());
  expect(landed.searchParams.get('state')).toBe('st-42');
  expect(landed.searchParams.get('iss')).toBe(gw.url);
  const code = landed.searchParams.get('code')!;
  expect(received.map((url) => url.searchParams.get('code'))).toContain(code);

  const exchanged = await exchangeCode(gw, { code, clientId, verifier, redirectUri });
  expect(exchanged.status).toBe(200);
  expect(exchanged.body.scope).toBe('sessions:read servers:read');
  const me = await gw.request('GET', '/v1/whoami', { key: exchanged.body.access_token });
  expect(me.status).toBe(200);
  expect(me.body.project.id).toBe(tenant.projectId);
  await page.close();
});

it('keeps the person on the page with the reason when the key holds none of what the client asks', async () => {
  const narrow = await gw.createKey(tenant.projectId, { scopes: ['sessions:read'] });
  const before = received.length;
  const { page } = await openConsent({ name: 'Greedy Agent', scope: 'tools:execute proxy:execute' });
  await page.fill('#api_key', narrow.key);
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.url() === `${gw.url}/oauth/authorize` && r.request().method() === 'POST'),
    page.click('#approve'),
  ]);
  expect(response.status()).toBe(400);
  await page.waitForSelector('#error');
  expect(await page.locator('#error').textContent()).toContain('cannot grant tools:execute proxy:execute');
  expect(page.url()).toBe(`${gw.url}/oauth/authorize`);
  expect(await page.locator('#api_key').inputValue()).toBe(''); // the key is never echoed back
  expect(received.length).toBe(before);
  await page.close();
});

it('renders a hostile client name as text and runs none of it', async () => {
  const hostile = '<img src=x onerror="document.title=\'pwned\'"><script>document.title="pwned"</script>';
  const { page } = await openConsent({ name: hostile });
  expect(await page.locator('#client-name').textContent()).toBe(hostile);
  expect(await page.locator('img').count()).toBe(0);
  expect(await page.locator('script').count()).toBe(0);
  expect(await page.title()).toBe(`Authorize ${hostile}`);
  await page.close();
});

it('sends the person back with access_denied when they deny', async () => {
  const { page } = await openConsent({ name: 'Declined Agent', state: 'deny-1' });
  await Promise.all([page.waitForURL(`${receiverUrl}/callback**`), page.click('#deny')]);
  const landed = new URL(page.url());
  expect(landed.searchParams.get('error')).toBe('access_denied');
  expect(landed.searchParams.get('state')).toBe('deny-1');
  expect(landed.searchParams.has('code')).toBe(false);
  await page.close();
});

it('shows an error page, and does not redirect, for a redirect URI the client never registered', async () => {
  const clientId = await registerClient(gw, {
    client_name: 'Agent',
    redirect_uris: [`${receiverUrl}/callback`],
  });
  const before = received.length;
  const page = await browser.newPage();
  const response = await page.goto(
    `${gw.url}${authorizePath({ clientId, challenge: pkce().challenge, redirectUri: `${receiverUrl}/elsewhere` })}`,
  );
  expect(response?.status()).toBe(400);
  expect(await page.locator('#error').textContent()).toContain('redirect_uri');
  expect(await page.locator('form').count()).toBe(0);
  expect(received.length).toBe(before);
  await page.close();
});
