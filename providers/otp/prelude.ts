// Prelude Verify v2 (https://api.prelude.dev/v2): Prelude generates, sends and checks the code.
// POST /verification {target: {type, value}, options, metadata} → {id, status: success|retry|challenged|blocked, reason?}
// POST /verification/check {target, code} → {id, status: success|failure|expired_or_not_found}
// Errors are {code, message, type, param?, request_id}; a Bearer API key authenticates.
import type { Channel } from '../../domain/contact-verification/policy';
import {
  classify,
  OtpSenderRefusedError,
  OtpSenderUnavailableError,
  postJson,
  type OtpSender,
} from './sender';

function target(channel: Channel, value: string) {
  return { type: channel === 'phone' ? 'phone_number' : 'email_address', value };
}

export function preludeSender(baseUrl: string, apiKey: string): OtpSender {
  const headers = { Authorization: `Bearer ${apiKey}` };
  return {
    name: 'prelude',
    ownsCode: true,
    async send(message) {
      const result = await postJson(
        'prelude',
        `${baseUrl}/verification`,
        {
          target: target(message.channel, message.target),
          options: { locale: message.locale, code_size: message.codeLength },
          metadata: { correlation_id: message.verificationId },
        },
        headers,
      );
      classify('prelude', result.status, result.body);
      // `blocked` is Prelude's fraud refusal: nothing was sent.
      if (result.body.status === 'blocked')
        throw new OtpSenderRefusedError('prelude', String(result.body.reason ?? 'blocked'));
      if (typeof result.body.id !== 'string')
        throw new OtpSenderUnavailableError('prelude', 'answer without a verification id');
      return { providerReference: result.body.id };
    },
    async check(input) {
      const result = await postJson(
        'prelude',
        `${baseUrl}/verification/check`,
        { target: target(input.channel, input.target), code: input.code },
        headers,
      );
      classify('prelude', result.status, result.body);
      switch (result.body.status) {
        case 'success':
          return 'success';
        case 'failure':
          return 'failure';
        case 'expired_or_not_found':
          return 'expired';
        default:
          throw new OtpSenderUnavailableError(
            'prelude',
            `unexpected check status ${String(result.body.status)}`,
          );
      }
    },
  };
}
