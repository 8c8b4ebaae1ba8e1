// The sender of a contact's provider (domain/contact-verification/policy.ts picks it). A sender is
// configured when its base URL (PROVIDER_<NAME>_URL) and credentials are set.
import type { OtpProviderName } from '../../domain/contact-verification/policy';
import { devSender } from './dev';
import { preludeSender } from './prelude';
import { resendSender } from './resend';
import type { OtpSender } from './sender';

/** The provider-name keys of config.providerUrls the senders use. */
export const OTP_PROVIDER_URL_KEYS: Record<OtpProviderName, string> = {
  dev: 'otp_dev',
  prelude: 'prelude',
  resend: 'resend',
};

export interface OtpCredentials {
  preludeApiKey: string | undefined;
  resendApiKey: string | undefined;
  resendFrom: string;
}

/** Read from the environment once: PRELUDE_API_KEY, RESEND_API_KEY, RESEND_FROM. */
let credentials: OtpCredentials | undefined;
export function otpCredentials(env: NodeJS.ProcessEnv = process.env): OtpCredentials {
  credentials ??= {
    preludeApiKey: env.PRELUDE_API_KEY?.trim() || undefined,
    resendApiKey: env.RESEND_API_KEY?.trim() || undefined,
    resendFrom: env.RESEND_FROM?.trim() || 'Verification <verify@localhost>',
  };
  return credentials;
}

/** The sender for a provider, or null when it is not configured (503 otp_sender_unavailable, nothing written). */
export function createSender(
  provider: OtpProviderName,
  providerUrls: Record<string, string>,
  creds: OtpCredentials = otpCredentials(),
): OtpSender | null {
  const url = providerUrls[OTP_PROVIDER_URL_KEYS[provider]];
  if (!url) return null;
  if (provider === 'dev') return devSender(url);
  if (provider === 'prelude') return creds.preludeApiKey ? preludeSender(url, creds.preludeApiKey) : null;
  return creds.resendApiKey ? resendSender(url, creds.resendApiKey, creds.resendFrom) : null;
}
