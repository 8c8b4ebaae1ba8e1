// The pay page in a real browser (headless Chromium): the buyer sees the title, the amounts and the
// x402 instructions, presses Pay with Pix and gets the charge's BR Code as text and as a QR image drawn
// on the server; the page loads nothing from anywhere else and runs no script.
import type { Browser, Page } from 'playwright-core';
import QRCode from 'qrcode';
import type { PixPspMock } from '../providers/mocks/pix-psp';
import { launchChromium } from './support/browser';
import { startGateway, type Gateway, type Tenant } from './support/harness';

let gw: Gateway;
let acme: Tenant;
let browser: Browser;
let page: Page;
let requested: string[];

beforeAll(async () => {
  gw = await startGateway();
  acme = await gw.createTenant({ name: 'Acme' });
  browser = await launchChromium();
});
beforeEach(async () => {
  page = await browser.newPage();
  requested = [];
  page.on('request', (request) => requested.push(request.url()));
});
afterEach(async () => page?.close());
afterAll(async () => {
  await browser?.close();
  await gw?.stop();
});

const BYO = '0x2222222222222222222222222222222222222222';
async function newLink(over: Record<string, unknown> = {}) {
  const created = await gw.request('POST', '/v1/payment-links', {
    key: acme.key,
    body: {
      title: 'Curso <b>de</b> Pix',
      description: 'Aulas gravadas',
      accepts: [
        { rail: 'pix', amount: '1234.5', currency: 'BRL', pix: { key: 'loja@acme.test' } },
        { rail: 'x402', amount: '1.25', currency: 'USDC', pay_to: { kind: 'byo', address: BYO } },
      ],
      ...over,
    },
  });
  expect(created.status).toBe(201);
  return created.body as { id: string; slug: string; pay_url: string };
}
const field = (name: string) => page.locator(`[data-field="${name}"]`);

describe('the pay page', () => {
  it('shows the title, amounts and x402 instructions, then the Pix BR Code and its QR image after Pay with Pix', async () => {
    const link = await newLink();
    const response = await page.goto(link.pay_url);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
    await expect(page.title()).resolves.toBe('Curso <b>de</b> Pix');
    expect(await page.locator('h1').textContent()).toBe('Curso <b>de</b> Pix');
    expect(await field('description').textContent()).toBe('Aulas gravadas');
    expect(await field('amount-pix').textContent()).toBe('R$ 1.234,50');
    expect(await field('amount-x402').textContent()).toBe('1.25 USDC');
    expect(await field('x402').textContent()).toContain(BYO);

    await page.click('#pay-pix');
    await page.waitForSelector('[data-field="br-code"]');
    const brCode = await field('br-code').inputValue();
    const psp = gw.mocks.pix_psp as PixPspMock;
    const cob = psp.cobs.all().find((c) => c.pixCopiaECola === brCode);
    expect(cob).toMatchObject({ status: 'ATIVA', chave: 'loja@acme.test', valor: { original: '1234.50' } });
    // The QR image is the BR Code's own QR, drawn as inline SVG in the page.
    const expected = await QRCode.toString(brCode, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    expect(await field('qr').locator('svg path[stroke]').getAttribute('d')).toBe(
      /stroke="#000000" d="([^"]+)"/.exec(expected)![1],
    );
    expect(await field('qr').locator('svg').isVisible()).toBe(true);
    const paymentId = (await field('payment-id').textContent())!.replace('Payment ', '');
    expect((await gw.request('GET', `/pay/${link.slug}/payments/${paymentId}`)).body).toMatchObject({
      status: 'pending',
      pix: { br_code: brCode },
    });
    // Nothing but the page itself and its own form post was fetched.
    expect(requested.every((url) => new URL(url).origin === new URL(gw.url).origin)).toBe(true);
    expect(await page.locator('script').count()).toBe(0);
  });

  it('says a paused link cannot be paid and offers no button', async () => {
    const link = await newLink();
    await gw.request('PATCH', `/v1/payment-links/${link.id}`, { key: acme.key, body: { active: false } });
    await page.goto(link.pay_url);
    expect(await field('refusal').textContent()).toContain('paused');
    expect(await page.locator('#pay-pix').count()).toBe(0);
  });

  it('shows the refusal when the last use went to another buyer between loading and paying', async () => {
    const link = await newLink({ max_uses: 1 });
    await page.goto(link.pay_url);
    expect((await gw.request('POST', `/pay/${link.slug}/payments`, { body: { rail: 'pix' } })).status).toBe(
      201,
    );
    const [answer] = await Promise.all([page.waitForNavigation(), page.click('#pay-pix')]);
    expect(answer?.status()).toBe(409);
    expect(await field('refusal').textContent()).toContain('number of payments');
    expect(await page.locator('[data-field="br-code"]').count()).toBe(0);
  });

  it('answers a form it did not build with a 400 page and opens no payment', async () => {
    const link = await newLink();
    const psp = gw.mocks.pix_psp as PixPspMock;
    const before = psp.cobs.creates().length;
    const refused = await gw.request('POST', `/pay/${link.slug}`, {
      raw: 'rail=card',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('content-type')).toContain('text/html');
    expect(refused.text).toContain('Payment not started');
    expect(psp.cobs.creates().length).toBe(before);
  });

  it('answers an unknown slug with a not-found page', async () => {
    const response = await page.goto(`${gw.url}/pay/no-such-link`);
    expect(response?.status()).toBe(404);
    expect(await page.locator('h1').textContent()).toBe('Payment link not found');
  });
});
