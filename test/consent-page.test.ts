// The hosted consent page in a real browser (headless Chromium): the consumer reads who asks and for
// what, confirms, and the gateway signs the mandate; used, unknown and expired links say so.
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './support/browser';
import { sql } from 'slonik';
import { consentCsrfToken } from '../api/pages/consent-csrf';
import { tokenDigest } from '../domain/consents/tokens';
import { HOLDER_CPF, createConsent, createConsumer, intent, startConsentGateway } from './support/consents';
import type { Gateway, Tenant } from './support/harness';

let gw: Gateway;
let tenant: Tenant;
let browser: Browser;
let page: Page;
beforeAll(async () => {
  gw = await startConsentGateway();
  tenant = await gw.createTenant();
  browser = await launchChromium();
});
beforeEach(async () => {
  page = await browser.newPage();
});
afterEach(async () => {
  await page?.close();
});
afterAll(async () => {
  await browser?.close();
  await gw?.stop();
});

const field = (name: string) => page.locator(`[data-field="${name}"]`);

describe('the hosted consent page', () => {
  it('shows who asks, the purpose, caps, currency, allowlists and expiry, and signs the mandate when the consumer confirms', async () => {
    const consent = await createConsent(gw, tenant.key, {
      callback_url: 'https://partner.example/consents/done?session=7',
      intent: intent({
        cap_minor: 123_456,
        per_tx_cap_minor: 10_000,
        merchant_allowlist: ['loja.example', 'feira.example'],
        dda_allowlist: [HOLDER_CPF],
        periodic_cap: { window: 'week', cap_minor: 20_000 },
        intent_note: 'Only for the weekly order',
        shipping: {
          name: 'Ana Souza',
          address: {
            line1: 'Rua A, 10',
            city: 'São Paulo',
            state: 'SP',
            postal_code: '01000-000',
            country: 'BR',
          },
        },
      }),
    });
    const posts: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST') posts.push(new URL(request.url()).pathname);
    });
    const response = await page.goto(consent.consent_url);
    expect(response?.status()).toBe(200);
    await expect(page.title()).resolves.toBe('Authorize Mercado Bot');
    expect(await page.locator('h1').textContent()).toBe('Authorize payments for Mercado Bot');
    expect(await field('asker').textContent()).toContain('(agent agent-7)');
    expect(await field('purpose').textContent()).toBe('Weekly groceries');
    expect(await field('currency').textContent()).toBe('BRL');
    expect(await field('cap').textContent()).toBe('BRL 1,234.56');
    expect(await field('per-tx-cap').textContent()).toBe('BRL 100.00');
    expect(await field('periodic-cap').textContent()).toBe('BRL 200.00');
    expect(await field('merchants').locator('li').allTextContents()).toEqual([
      'loja.example',
      'feira.example',
    ]);
    expect(await field('withdrawals').textContent()).toBe('No cash-out');
    expect(await field('dda').locator('li').allTextContents()).toEqual(['529.982.247-25']);
    expect(await field('shipping').textContent()).toContain('Rua A, 10');
    expect(await field('validity').textContent()).toBe('30 days from when you authorize');
    expect(await field('note').textContent()).toBe('Only for the weekly order');
    expect(await field('expires').getAttribute('datetime')).toBe(consent.expires_at);

    // Submitting without ticking the box changes nothing.
    await page.click('#authorize');
    await page.waitForSelector('#result.error');
    expect(await page.locator('#result').textContent()).toContain('Please confirm');
    expect((await gw.request('GET', `/v1/consents/${consent.token}`, { key: tenant.key })).body.status).toBe(
      'pending',
    );

    await page.fill('#display_label', 'Meu Pix');
    await page.check('#agree');
    await page.click('#authorize');
    await page.waitForSelector('#result.success');
    const mandateId = await page.locator('#result').getAttribute('data-mandate-id');
    expect(mandateId).toMatch(/^mnd_/);
    expect(await page.locator('#consent-form').isHidden()).toBe(true);
    // The page posts to its own route, never to the API operation (which takes a partner's credential).
    expect(posts).toEqual([`/consent/${consent.token}`]);
    const next = new URL((await page.locator('#continue').getAttribute('href'))!);
    expect(`${next.origin}${next.pathname}`).toBe('https://partner.example/consents/done');
    expect(Object.fromEntries(next.searchParams)).toEqual({ session: '7', mandate_id: mandateId });

    const mandate = await gw.request('GET', `/v1/mandates/${mandateId}`, { key: tenant.key });
    expect(mandate.body).toMatchObject({
      status: 'active',
      agent_id: 'agent-7',
      cap_minor: '123456',
      purpose: 'Weekly groceries',
    });
    expect(mandate.body.mandate.merchant_allowlist).toEqual(['loja.example', 'feira.example']);
    const verified = await gw.request('POST', '/v1/mandates/verify', {
      key: tenant.key,
      body: { mandate: mandate.body.mandate, signature: mandate.body.signature },
    });
    expect(verified.status).toBe(200);
    const source = await gw.db.one(
      sql.unsafe`SELECT rail, display_label FROM consumer_funding_sources WHERE id = ${mandate.body.funding_source_id}`,
    );
    expect(source).toEqual({ rail: 'pix-consent', display_label: 'Meu Pix' });

    // The link is one-shot: opening it again says it was answered.
    const again = await page.goto(consent.consent_url);
    expect(again?.status()).toBe(409);
    expect(await page.locator('h1').textContent()).toBe('Already authorized');
  });

  it('binds the grant to the consumer the partner named in the link', async () => {
    const consumer = await createConsumer(gw, tenant.key, 'Carla Dias');
    const consent = await createConsent(gw, tenant.key);
    await page.goto(`${consent.consent_url}?consumer_id=${consumer.id}`);
    await page.check('#agree');
    await page.click('#authorize');
    await page.waitForSelector('#result.success');
    const mandateId = await page.locator('#result').getAttribute('data-mandate-id');
    const mandate = await gw.request('GET', `/v1/mandates/${mandateId}`, { key: tenant.key });
    expect(mandate.body.consumer_id).toBe(consumer.id);
  });

  it('shows the refusal when the consent was answered elsewhere meanwhile, and lets nothing through twice', async () => {
    const consent = await createConsent(gw, tenant.key);
    await page.goto(consent.consent_url);
    expect(
      (await gw.request('POST', `/v1/consents/${consent.token}/submit`, { key: tenant.key, body: {} }))
        .status,
    ).toBe(201);
    await page.check('#agree');
    await page.click('#authorize');
    await page.waitForSelector('#result.error');
    expect(await page.locator('#result').getAttribute('data-error-code')).toBe('consent_token_consumed');
    const count = await gw.db.oneFirst(
      sql.unsafe`SELECT count(*)::int AS n FROM mandates WHERE consent_id = (SELECT id FROM consents WHERE token_digest = ${tokenDigest(consent.token)})`,
    );
    expect(count).toBe(1);
  });

  it('says so when a link is unknown or expired', async () => {
    const unknown = await page.goto(`${gw.url}/consent/ctk_${'Q'.repeat(40)}`);
    expect(unknown?.status()).toBe(404);
    expect(await page.locator('h1').textContent()).toBe('Consent not found');

    const consent = await createConsent(gw, tenant.key);
    await gw.db.query(
      sql.unsafe`UPDATE consents SET expires_at = now() - interval '1 second' WHERE token_digest = ${tokenDigest(consent.token)}`,
    );
    const expired = await page.goto(consent.consent_url);
    expect(expired?.status()).toBe(410);
    expect(await page.locator('h1').textContent()).toBe('This request expired');
    expect(await page.locator('#consent-form').count()).toBe(0);
  });

  it('sends partner consents back to the partner app', async () => {
    const consent = await createConsent(gw, tenant.key, { surface: 'partner' });
    const answer = await page.goto(consent.consent_url);
    expect(answer?.status()).toBe(409);
    expect(await page.locator('h1').textContent()).toBe('Confirm in the partner app');
  });

  it('offers a URN callback as the Continue link with the mandate id', async () => {
    const consent = await createConsent(gw, tenant.key, { callback_url: 'myapp://consents/done' });
    await page.goto(consent.consent_url);
    await page.check('#agree');
    await page.click('#authorize');
    await page.waitForSelector('#result.success');
    const mandateId = await page.locator('#result').getAttribute('data-mandate-id');
    expect(await page.locator('#continue').getAttribute('href')).toBe(
      `myapp://consents/done?mandate_id=${mandateId}`,
    );
  });

  it('renders what the agent wrote as text, cannot be framed, and leaks no token through referrers', async () => {
    let dialogs = 0;
    page.on('dialog', async (dialog) => {
      dialogs++;
      await dialog.dismiss();
    });
    const consent = await createConsent(gw, tenant.key, {
      intent: intent({
        display_name: '<img src=x onerror=alert(1)>',
        intent_note: '<script>alert(2)</script>',
        purpose: '"><b>bold</b>',
      }),
    });
    const response = await page.goto(consent.consent_url);
    const headers = response!.headers();
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['content-security-policy']).toContain("script-src 'self'");
    expect(headers['x-frame-options']).toBe('DENY');
    expect(headers['referrer-policy']).toBe('no-referrer');
    expect(headers['cache-control']).toBe('no-store');
    expect(await field('note').textContent()).toBe('<script>alert(2)</script>');
    expect(await field('purpose').textContent()).toBe('"><b>bold</b>');
    expect(await page.locator('b').count()).toBe(0);
    expect(await page.locator('img').count()).toBe(0);
    expect(dialogs).toBe(0);
  });
});

describe("the page's own submit, over plain HTTP", () => {
  const csrfOf = async (token: string) => {
    const html = (await gw.request('GET', `/consent/${token}`)).text;
    return /data-csrf="([^"]+)"/.exec(html)![1];
  };
  const mandatesOf = (token: string) =>
    gw.db.oneFirst(
      sql.unsafe`SELECT count(*)::int AS n FROM mandates WHERE consent_id = (SELECT id FROM consents WHERE token_digest = ${tokenDigest(token)})`,
    );

  it("signs with the token and the page's anti-forgery header, answering only what the page shows", async () => {
    const consent = await createConsent(gw, tenant.key, { callback_url: 'urn:example:partner:done' });
    const answer = await gw.request('POST', `/consent/${consent.token}`, {
      body: { display_label: 'Meu Pix' },
      headers: {
        'X-Consent-Csrf': await csrfOf(consent.token),
        Origin: gw.url,
        'Sec-Fetch-Site': 'same-origin',
      },
    });
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({
      mandate_id: expect.stringMatching(/^mnd_/),
      expires_at: expect.any(String),
      callback_url: 'urn:example:partner:done',
    });
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(await mandatesOf(consent.token)).toBe(1);
  });

  it.each([
    ['without the anti-forgery header', () => ({})],
    [
      "with another consent's anti-forgery token",
      (_own: string, other: string) => ({ 'X-Consent-Csrf': other }),
    ],
    ['from another origin', (own: string) => ({ 'X-Consent-Csrf': own, Origin: 'https://attacker.example' })],
    [
      'from another site, as fetch metadata says',
      (own: string) => ({ 'X-Consent-Csrf': own, 'Sec-Fetch-Site': 'cross-site' }),
    ],
  ])('refuses a submit %s with 403 csrf_refused, and writes nothing', async (_name, headersFor) => {
    const consent = await createConsent(gw, tenant.key);
    const other = await createConsent(gw, tenant.key);
    const headers = (headersFor as (own: string, other: string) => Record<string, string>)(
      await csrfOf(consent.token),
      await csrfOf(other.token),
    );
    const refused = await gw.request('POST', `/consent/${consent.token}`, { body: {}, headers });
    expect([refused.status, refused.body.error.code]).toEqual([403, 'csrf_refused']);
    expect(await mandatesOf(consent.token)).toBe(0);
    expect((await gw.request('GET', `/v1/consents/${consent.token}`, { key: tenant.key })).body.status).toBe(
      'pending',
    );
  });

  it('refuses a cross-site form post and anything a partner would attest, and writes nothing', async () => {
    const consent = await createConsent(gw, tenant.key);
    const csrf = await csrfOf(consent.token);
    const form = await gw.request('POST', `/consent/${consent.token}`, {
      raw: 'agree=on',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Consent-Csrf': csrf },
    });
    expect(form.status).toBe(415);
    const attested = await gw.request('POST', `/consent/${consent.token}`, {
      body: { attestation: { method: 'partner_session' } },
      headers: { 'X-Consent-Csrf': csrf },
    });
    expect([attested.status, attested.body.error.code]).toEqual([400, 'invalid_body']);
    expect(await mandatesOf(consent.token)).toBe(0);
  });

  it('answers 404 for an unknown token and 409 for a used one', async () => {
    const token = `ctk_${'Q'.repeat(40)}`;
    const unknown = await gw.request('POST', `/consent/${token}`, {
      body: {},
      headers: { 'X-Consent-Csrf': consentCsrfToken(gw.config.encryptionKeys, tokenDigest(token)) },
    });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'not_found']);
    const consent = await createConsent(gw, tenant.key);
    const csrf = await csrfOf(consent.token);
    expect(
      (
        await gw.request('POST', `/consent/${consent.token}`, {
          body: {},
          headers: { 'X-Consent-Csrf': csrf },
        })
      ).status,
    ).toBe(201);
    const again = await gw.request('POST', `/consent/${consent.token}`, {
      body: {},
      headers: { 'X-Consent-Csrf': csrf },
    });
    expect([again.status, again.body.error.code]).toEqual([409, 'consent_token_consumed']);
    expect(await mandatesOf(consent.token)).toBe(1);
  });
});
