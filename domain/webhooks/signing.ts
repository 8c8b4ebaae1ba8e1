// Standard Webhooks signing: secrets are `whsec_` + base64 of 32 random bytes; each request carries
// `webhook-id`, `webhook-timestamp` (unix seconds) and `webhook-signature: v1,<base64 HMAC-SHA256>`
// over `{id}.{timestamp}.{body}`, keyed with the secret's decoded bytes.
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

export function generateSigningSecret(): string {
  return `${PREFIX}${randomBytes(32).toString('base64')}`;
}

function secretBytes(secret: string): Buffer {
  if (!secret.startsWith(PREFIX)) throw new Error('signing secret must start with whsec_');
  return Buffer.from(secret.slice(PREFIX.length), 'base64');
}

export function sign(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secretBytes(secret))
    .update(`${messageId}.${timestampSeconds}.${body}`)
    .digest('base64');
  return `v1,${mac}`;
}

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature'?: string;
}

/** Headers for one attempt; without a secret (signing disabled) the signature header is left out. */
export function signedHeaders(
  secret: string | null,
  messageId: string,
  timestampSeconds: number,
  body: string,
): SignedHeaders {
  const headers: SignedHeaders = { 'webhook-id': messageId, 'webhook-timestamp': String(timestampSeconds) };
  if (secret) headers['webhook-signature'] = sign(secret, messageId, timestampSeconds, body);
  return headers;
}
