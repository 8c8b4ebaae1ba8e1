// Contact verification activities: the only code that calls OTP senders. The target (and, for checks,
// the code) arrive sealed, so Temporal's history never holds a phone number, an email or a code.
import { ApplicationFailure } from '@temporalio/activity';
import type {
  ContactCodeCheckInput,
  ContactCodeDeliveryInput,
  OtpCheckStatus,
} from '../contracts/contact-code';
import { open } from '../domain/crypto/secret-box';
import { deriveCode, hashCode, sealContactSecret } from '../domain/contact-verification/codes';
import {
  OTP_SENDER_REFUSED,
  OTP_SENDER_UNAVAILABLE,
  OTP_SENDER_UNCONFIGURED,
} from '../domain/contact-verification/failure-types';
import { CODE_TTL_SECONDS } from '../domain/contact-verification/policy';
import {
  completeVerification,
  discardVerification,
  findVerificationById,
  storeCodeHash,
} from '../domain/contact-verification/verifications';
import { createSender } from '../providers/otp/select';
import { OtpSenderRefusedError, OtpSenderUnavailableError, type OtpSender } from '../providers/otp/sender';
import type { Config } from '../runtime/config';
import type { DatabasePool } from '../runtime/database';

function senderOrFail(config: Config, provider: 'dev' | 'prelude' | 'resend'): OtpSender {
  const sender = createSender(provider, config.providerUrls);
  if (!sender)
    throw ApplicationFailure.nonRetryable(`No ${provider} sender is configured`, OTP_SENDER_UNCONFIGURED, {
      provider,
    });
  return sender;
}

function providerFailure(error: unknown): never {
  if (error instanceof OtpSenderRefusedError) {
    throw ApplicationFailure.nonRetryable(error.message, OTP_SENDER_REFUSED, {
      provider: error.provider,
      reason: error.reason,
    });
  }
  if (error instanceof OtpSenderUnavailableError)
    throw ApplicationFailure.retryable(error.message, OTP_SENDER_UNAVAILABLE);
  throw error;
}

export function contactVerificationActivities(db: DatabasePool, config: Config) {
  return {
    async sendContactCode(input: ContactCodeDeliveryInput): Promise<{ providerReference: string | null }> {
      const row = await findVerificationById(db, input.verificationId);
      if (!row) throw ApplicationFailure.nonRetryable('The verification row is gone', OTP_SENDER_UNAVAILABLE);
      const sender = senderOrFail(config, row.provider);
      const target = open(config.encryptionKeys, input.targetSealed, sealContactSecret('target', row.id));
      let code: string | null = null;
      if (!sender.ownsCode) {
        code = deriveCode(config.encryptionKeys, row.code_key_version, row.id, row.code_length);
        await storeCodeHash(db, row.id, hashCode(config.apiKeyPepper, row.id, code));
      }
      try {
        return await sender.send({
          verificationId: row.id,
          channel: row.channel,
          target,
          code,
          codeLength: row.code_length,
          locale: row.locale,
          ttlMinutes: CODE_TTL_SECONDS / 60,
          idempotencyKey: `contact-verification/${row.id}`,
        });
      } catch (error) {
        return providerFailure(error);
      }
    },

    async completeContactVerification(
      verificationId: string,
      providerReference: string | null,
    ): Promise<void> {
      const outcome = await completeVerification(db, verificationId, providerReference);
      if (outcome === 'missing')
        throw ApplicationFailure.nonRetryable('The verification row is gone', OTP_SENDER_UNAVAILABLE);
    },

    async discardContactVerification(verificationId: string): Promise<void> {
      await discardVerification(db, verificationId);
    },

    async checkContactCode(input: ContactCodeCheckInput): Promise<OtpCheckStatus> {
      const row = await findVerificationById(db, input.verificationId);
      if (!row) throw ApplicationFailure.nonRetryable('The verification row is gone', OTP_SENDER_UNAVAILABLE);
      const sender = senderOrFail(config, row.provider);
      if (!sender.check)
        throw ApplicationFailure.nonRetryable(
          `${row.provider} does not check codes`,
          OTP_SENDER_UNCONFIGURED,
        );
      const target = open(config.encryptionKeys, input.targetSealed, sealContactSecret('target', row.id));
      const code = open(config.encryptionKeys, input.codeSealed, sealContactSecret('code', row.id));
      try {
        return await sender.check({ channel: row.channel, target, code });
      } catch (error) {
        return providerFailure(error);
      }
    },
  };
}
