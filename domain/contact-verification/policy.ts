// The numbers of contact verification (code length, lifetime, attempts, the hourly send ceiling) and which
// sender serves a contact.
import type { Environment } from '../../contracts/environment';

export const CODE_LENGTH = 6; // within the spec's 4..8 digits
export const CODE_TTL_SECONDS = 10 * 60;
export const MAX_ATTEMPTS = 5;
export const SEND_WINDOW_SECONDS = 60 * 60;
export const MAX_SENDS_PER_WINDOW = 5;

export type Channel = 'email' | 'phone';
export type OtpProviderName = 'dev' | 'prelude' | 'resend';

/** `dev` in test projects; in live projects Prelude for phones and Resend for email. */
export function providerFor(environment: Environment, channel: Channel): OtpProviderName {
  if (environment === 'test') return 'dev';
  return channel === 'phone' ? 'prelude' : 'resend';
}

export const CODE_FORMAT = /^[0-9]{4,8}$/;
