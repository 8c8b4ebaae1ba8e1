// The `dev` sender for test projects: posts the message to the development message sink (a mock
// provider in `npm run dev` and tests) where the dev console and tests read it. Nothing leaves the machine.
import { otpText } from './messages';
import { classify, postJson, type OtpSender } from './sender';

export function devSender(baseUrl: string): OtpSender {
  return {
    name: 'dev',
    ownsCode: false,
    async send(message) {
      const { subject, text } = otpText(message.locale, message.code!, message.ttlMinutes);
      const result = await postJson(
        'dev',
        `${baseUrl}/v1/messages`,
        {
          channel: message.channel,
          to: message.target,
          subject,
          text,
          locale: message.locale,
          reference: message.verificationId,
        },
        { 'Idempotency-Key': message.idempotencyKey },
      );
      classify('dev', result.status, result.body);
      return { providerReference: typeof result.body.id === 'string' ? result.body.id : null };
    },
  };
}
