// The pay page of a payment link (`/pay/<slug>`): title, description and amount of each accepted rail,
// x402 instructions, and a button that opens a Pix payment and shows its BR Code as text and as a QR
// image drawn on the server (inline SVG). No script, no external asset; styles pinned by hash in the CSP.
import { createHash } from 'node:crypto';
import QRCode from 'qrcode';
import type { LinkRow } from '../../domain/payment-links/links';
import { escapeHtml, htmlPage } from './html';

const STYLE = `
body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;background:#f4f5f7;color:#1d2330;margin:0}
main{max-width:34rem;margin:3rem auto;background:#fff;border-radius:12px;padding:2rem;box-shadow:0 2px 12px rgba(0,0,0,.08)}
h1{font-size:1.35rem;margin:0 0 .5rem}
.muted{color:#5b6475;font-size:.92rem}
.amount{font-size:1.6rem;font-weight:700;margin:.75rem 0}
.rail{border-top:1px solid #e3e6ec;margin-top:1.25rem;padding-top:1rem}
.error{background:#fdecec;border:1px solid #e39a9a;border-radius:8px;padding:.6rem .8rem;color:#8a1c1c}
textarea{box-sizing:border-box;width:100%;min-height:6rem;font:13px/1.4 ui-monospace,monospace;border:1px solid #b9bfcc;border-radius:8px;padding:.5rem}
.qr svg{width:240px;height:240px;display:block;margin:1rem auto}
code{font-size:.9rem;background:#f0f1f4;padding:0 .25rem;border-radius:4px;word-break:break-all}
button{font:inherit;padding:.6rem 1.2rem;border-radius:8px;border:1px solid #2451d6;background:#2451d6;color:#fff;cursor:pointer}
`;
const STYLE_HASH = `sha256-${createHash('sha256').update(STYLE).digest('base64')}`;

export const payPageHeaders: Record<string, string> = {
  'Content-Security-Policy': `default-src 'none'; style-src '${STYLE_HASH}'; img-src data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

/** `2590` centavos as `R$ 25,90`; `1500000` USDC atoms as `1.5 USDC`. */
export function formatAmount(currency: 'BRL' | 'USDC', atomic: string): string {
  const value = BigInt(atomic);
  if (currency === 'BRL') {
    const units = (value / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, '.');
    return `R$ ${units},${(value % 100n).toString().padStart(2, '0')}`;
  }
  const fraction = (value % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '');
  return `${value / 1_000_000n}${fraction ? `.${fraction}` : ''} USDC`;
}

export interface PixShown {
  paymentId: string;
  brCode: string;
}

export interface PayView {
  link: LinkRow;
  /** Why the link cannot be paid now; null when it can. */
  refusal: string | null;
  pix: PixShown | null;
}

async function pixSection(link: LinkRow, view: PayView): Promise<string> {
  const accept = link.accepts.find((a) => a.rail === 'pix');
  if (!accept) return '';
  const head = `<section class="rail" data-rail="pix"><h2>Pix</h2><p class="amount" data-field="amount-pix">${escapeHtml(formatAmount('BRL', accept.amount_atomic))}</p>`;
  if (view.pix) {
    const svg = await QRCode.toString(view.pix.brCode, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    return `${head}<p>Scan the code with your bank's app, or paste the Pix Copia e Cola.</p>
<div class="qr" data-field="qr" role="img" aria-label="Pix QR code">${svg}</div>
<label for="br-code">Pix Copia e Cola</label>
<textarea id="br-code" data-field="br-code" readonly>${escapeHtml(view.pix.brCode)}</textarea>
<p class="muted" data-field="payment-id">Payment ${escapeHtml(view.pix.paymentId)}</p></section>`;
  }
  if (view.refusal) return `${head}</section>`;
  return `${head}<form method="post" action="/pay/${encodeURIComponent(link.slug)}"><input type="hidden" name="rail" value="pix"><button id="pay-pix" type="submit">Pay with Pix</button></form></section>`;
}

function x402Section(link: LinkRow): string {
  const accept = link.accepts.find((a) => a.rail === 'x402');
  if (!accept) return '';
  return `<section class="rail" data-rail="x402"><h2>x402 (USDC)</h2><p class="amount" data-field="amount-x402">${escapeHtml(formatAmount('USDC', accept.amount_atomic))}</p>
<p data-field="x402">An x402 client requests <code>${escapeHtml(`/pay/${link.slug}/x402`)}</code>, receives a 402 with the payment requirements, and pays
${escapeHtml(formatAmount('USDC', accept.amount_atomic))} to <code>${escapeHtml(accept.pay_to || 'the receiving wallet')}</code> with a signed USDC transfer authorization.</p></section>`;
}

export async function renderPayPage(view: PayView): Promise<string> {
  const { link } = view;
  const content = `<h1>${escapeHtml(link.title)}</h1>
${link.description ? `<p class="muted" data-field="description">${escapeHtml(link.description)}</p>` : ''}
${view.refusal ? `<p class="error" id="refusal" data-field="refusal">${escapeHtml(view.refusal)}</p>` : ''}
${await pixSection(link, view)}
${x402Section(link)}`;
  return htmlPage({ title: link.title, head: `<style>${STYLE}</style>`, content });
}

export function renderMessagePage(title: string, text: string): string {
  return htmlPage({
    title,
    head: `<style>${STYLE}</style>`,
    content: `<h1>${escapeHtml(title)}</h1><p class="muted">${escapeHtml(text)}</p>`,
  });
}

export const renderMissingPage = (): string =>
  renderMessagePage('Payment link not found', 'Check the address you were given.');
