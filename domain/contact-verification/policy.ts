// The numbers of contact verification: code length, lifetime, attempts and the hourly send ceiling.
export const CODE_LENGTH = 6; // within the spec's 4..8 digits
export const CODE_TTL_SECONDS = 10 * 60;
export const MAX_ATTEMPTS = 5;
export const SEND_WINDOW_SECONDS = 60 * 60;
export const MAX_SENDS_PER_WINDOW = 5;

export type Channel = 'email' | 'phone';
export type OtpProviderName = 'dev' | 'prelude' | 'resend';

export const CODE_FORMAT = /^[0-9]{4,8}$/;
