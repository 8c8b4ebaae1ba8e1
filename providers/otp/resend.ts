// Resend (https://api.resend.com): the gateway's code, delivered by email.
// POST /emails {from, to: [..], subject, text, html} with Authorization: Bearer <key> and Idempotency-Key
// → 200 {id}; errors {statusCode, name, message} (422 validation_error, 403/401 key problems, 429 rate limits).
import { otpText } from './messages';
import { classify, postJson, type OtpSender } from './sender';

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function resendSender(baseUrl: string, apiKey: string, from: string): OtpSender {
  return {
    name: 'resend',
    ownsCode: false,
    async send(message) {
      const { subject, text } = otpText(message.locale, message.code!, message.ttlMinutes);
      const result = await postJson(
        'resend',
        `${baseUrl}/emails`,
        {
          from,
          to: [message.target],
          subject,
          text,
          html: `<p>${escapeHtml(text)}</p>`,
          tags: [{ name: 'category', value: 'contact_verification' }],
        },
        { Authorization: `Bearer ${apiKey}`, 'Idempotency-Key': message.idempotencyKey },
      );
      classify('resend', result.status, result.body);
      return { providerReference: typeof result.body.id === 'string' ? result.body.id : null };
    },
  };
}
