// The hosted consent page: who asks, for what, with which caps, currencies, allowlists and expiry, and
// the consumer's confirmation. Server-rendered and escaped; one small same-origin script submits it.
import type { ConsentRow } from '../../domain/consents/consents';
import { formatDocument, formatDuration, formatMinor } from './consent-format';
import { escapeHtml as e, htmlPage } from './html';

/** Headers for every consent page: no framing (clickjacking), no caching, no referrer (the path holds the token). */
export const CONSENT_PAGE_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};

function layout(title: string, body: string, script = false): string {
  return htmlPage({
    title,
    head: '<link rel="stylesheet" href="/consent/assets/consent.css">',
    content: body,
    tail: script ? '<script src="/consent/assets/consent.js"></script>\n' : '',
  });
}

const row = (label: string, value: string, id: string) =>
  `      <tr><th scope="row">${e(label)}</th><td data-field="${id}">${value}</td></tr>`;
const list = (items: string[]) => `<ul>${items.map((item) => `<li>${e(item)}</li>`).join('')}</ul>`;

/** `csrf` is the page's anti-forgery token (pages/consent-csrf.ts), sent back by its script on submit. */
export function consentPage(consent: ConsentRow, token: string, csrf: string): string {
  const intent = consent.intent;
  const asker = intent.display_name ?? consent.agent_id;
  const merchants = intent.merchant_allowlist.includes('*')
    ? 'Any merchant, within the limits above'
    : list(intent.merchant_allowlist);
  const rows = [
    row(
      'Requested by',
      `${e(asker)}${intent.display_name ? ` <span class="muted">(agent ${e(consent.agent_id)})</span>` : ''}`,
      'asker',
    ),
    row('Purpose', e(intent.purpose), 'purpose'),
    row('Currency', e(intent.currency), 'currency'),
    row('Total limit', e(formatMinor(intent.cap_minor, intent.currency)), 'cap'),
    row('Limit per payment', e(formatMinor(intent.per_tx_cap_minor, intent.currency)), 'per-tx-cap'),
  ];
  if (intent.periodic_cap)
    rows.push(
      row(
        `Limit per ${intent.periodic_cap.window}`,
        e(formatMinor(intent.periodic_cap.cap_minor, intent.currency)),
        'periodic-cap',
      ),
    );
  for (const slot of intent.slots ?? []) {
    rows.push(
      row(
        `Limit in ${slot.currency} via ${slot.rail}`,
        `${e(formatMinor(slot.cap_minor, slot.currency))}, at most ${e(formatMinor(slot.per_tx_cap_minor, slot.currency))} per payment`,
        `slot-${slot.currency}-${slot.rail}`,
      ),
    );
  }
  rows.push(
    row('Who can be paid', merchants, 'merchants'),
    row(
      'Cash-out to',
      intent.withdrawal_allowlist ? list(intent.withdrawal_allowlist) : 'No cash-out',
      'withdrawals',
    ),
    row(
      'Boletos (DDA) for',
      intent.dda_allowlist ? list(intent.dda_allowlist.map(formatDocument)) : 'None',
      'dda',
    ),
  );
  if (intent.shipping) {
    const address = intent.shipping.address as Record<string, string>;
    const lines = [
      intent.shipping.name as string,
      address.line1,
      address.line2,
      `${address.city}${address.state ? `, ${address.state}` : ''} ${address.postal_code}`,
      address.country,
    ];
    rows.push(
      row(
        'Ship to',
        lines
          .filter(Boolean)
          .map((line) => e(line))
          .join('<br>'),
        'shipping',
      ),
    );
  }
  rows.push(
    row('Valid for', `${e(formatDuration(intent.mandate_ttl_seconds))} from when you authorize`, 'validity'),
  );

  const body = `    <h1>Authorize payments for ${e(asker)}</h1>
    <p class="lead">${e(asker)} asks to make payments on your behalf. Review the limits, then authorize or close this page.</p>
${intent.intent_note ? `    <p class="note" data-field="note">${e(intent.intent_note)}</p>\n` : ''}    <table>
${rows.join('\n')}
    </table>
    <p class="muted">This request expires at <time datetime="${e(consent.expires_at)}" data-field="expires">${e(consent.expires_at.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'))}</time>.
      You can revoke the authorization later.</p>
    <form id="consent-form" data-submit-url="/consent/${e(token)}" data-csrf="${e(csrf)}" novalidate>
      <label for="display_label">Name this payment method (optional)</label>
      <input id="display_label" name="display_label" maxlength="120" autocomplete="off" placeholder="e.g. My Pix account">
      <label class="check"><input type="checkbox" id="agree" name="agree" required>
        I authorize ${e(asker)} to make payments within these limits.</label>
      <button type="submit" id="authorize">Authorize</button>
    </form>
    <div id="result" role="status" aria-live="polite"></div>
    <noscript><p class="error">This page needs JavaScript to submit your authorization.</p></noscript>`;
  return layout(`Authorize ${asker}`, body, true);
}

export function consentMessagePage(title: string, message: string): string {
  return layout(
    title,
    `    <h1>${e(title)}</h1>\n    <p class="lead" data-field="message">${e(message)}</p>`,
  );
}
