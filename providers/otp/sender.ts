// One interface for every one-time-code sender. A sender either delivers a code the gateway derived
// (dev, resend) or owns the code itself and checks it on request (prelude). Errors are normalized to two
// kinds: a refusal (the provider will not send to this target; retrying is pointless) and unavailability.
import type { OtpCheckStatus } from '../../contracts/contact-code';
import type { Channel, OtpProviderName } from '../../domain/contact-verification/policy';

export interface OtpMessage {
  verificationId: string;
  channel: Channel;
  target: string;
  /** The code to deliver; null for senders that own their codes. */
  code: string | null;
  codeLength: number;
  locale: string;
  ttlMinutes: number;
  /** Stable per verification, so a retried send is not a second message. */
  idempotencyKey: string;
}

export interface OtpSendResult {
  providerReference: string | null;
}

export interface OtpSender {
  name: OtpProviderName;
  ownsCode: boolean;
  send(message: OtpMessage): Promise<OtpSendResult>;
  /** Only for senders that own their codes. */
  check?(input: { channel: Channel; target: string; code: string }): Promise<OtpCheckStatus>;
}

export class OtpSenderRefusedError extends Error {
  constructor(
    readonly provider: OtpProviderName,
    readonly reason: string,
  ) {
    super(`${provider} refused to send: ${reason}`);
    this.name = 'OtpSenderRefusedError';
  }
}

export class OtpSenderUnavailableError extends Error {
  constructor(
    readonly provider: OtpProviderName,
    detail: string,
  ) {
    super(`${provider} is unavailable: ${detail}`);
    this.name = 'OtpSenderUnavailableError';
  }
}

/** POSTs JSON with a deadline; network failures and timeouts are unavailability. */
export async function postJson(
  provider: OtpProviderName,
  url: string,
  body: unknown,
  headers: Record<string, string>,
  timeoutMs = 10_000,
): Promise<{ status: number; body: Record<string, unknown> }> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...headers },
      body: JSON.stringify(body),
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw new OtpSenderUnavailableError(provider, (error as Error).message);
  }
  const text = await response.text();
  let parsed: Record<string, unknown> = {};
  try {
    parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    parsed = { raw: text.slice(0, 200) };
  }
  return { status: response.status, body: parsed };
}

/** The shared reading of provider statuses: 2xx ok, 408/409/429/5xx retryable, other 4xx a refusal. */
export function classify(provider: OtpProviderName, status: number, body: Record<string, unknown>): void {
  if (status >= 200 && status < 300) return;
  const reason = String(body.code ?? body.name ?? body.message ?? `HTTP ${status}`);
  if (status === 408 || status === 409 || status === 429 || status >= 500)
    throw new OtpSenderUnavailableError(provider, reason);
  throw new OtpSenderRefusedError(provider, reason);
}
