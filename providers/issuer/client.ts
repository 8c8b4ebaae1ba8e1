// The card issuer's adapter: registers where the issuer sends authorization requests and later messages,
// creates a virtual card (idempotent by the mint flow's id), sets a card's status, and opens a display
// session on the issuer's own page, the only place a card's number and CVC are ever shown. Failures are
// typed: the issuer refusing (4xx, with its code) and the issuer failing or not answering.
import { z } from 'zod';

export class IssuerRefused extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'IssuerRefused';
  }
}

export class IssuerUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IssuerUnavailable';
  }
}

const issuedCard = z.object({
  id: z.string(),
  last4: z.string(),
  brand: z.string(),
  exp_month: z.number(),
  exp_year: z.number(),
  status: z.enum(['active', 'inactive', 'canceled']),
});
export type IssuedCard = z.infer<typeof issuedCard>;

/** The card an answer carries; an answer that is not one is the issuer failing, like no answer at all. */
function cardOf(answer: Record<string, unknown>): IssuedCard {
  const card = issuedCard.safeParse(answer);
  if (!card.success) throw new IssuerUnavailable('The issuer answered something other than a card');
  return card.data;
}

export interface IssuerProvider {
  registerEndpoint(url: string): Promise<void>;
  createCard(
    idempotencyKey: string,
    input: { currency: string; metadata: Record<string, string> },
  ): Promise<IssuedCard>;
  setStatus(cardId: string, status: IssuedCard['status']): Promise<IssuedCard>;
  displaySession(cardId: string): Promise<{ url: string; expiresAt: Date }>;
}

export function issuerProvider(options: {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
}): IssuerProvider {
  const call = async (path: string, body: unknown, idempotencyKey?: string) => {
    let response: Response;
    try {
      response = await fetch(`${options.baseUrl}${path}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${options.apiKey}`,
          'content-type': 'application/json',
          ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(options.timeoutMs),
        redirect: 'error',
      });
    } catch (error) {
      throw new IssuerUnavailable(`The issuer did not answer: ${(error as Error).message}`);
    }
    const parsed = (await response.json().catch(() => null)) as Record<string, unknown> | null;
    if (response.status >= 400 && response.status < 500) {
      const error = (parsed?.error ?? {}) as { code?: unknown };
      const code = typeof error.code === 'string' ? error.code : `http_${response.status}`;
      throw new IssuerRefused(code, `The issuer refused the request (${code})`);
    }
    if (!response.ok || !parsed) throw new IssuerUnavailable(`The issuer answered ${response.status}`);
    return parsed;
  };
  return {
    async registerEndpoint(url) {
      await call('/v1/webhook_endpoints', { url, enabled_events: ['*'] });
    },
    async createCard(idempotencyKey, input) {
      return cardOf(await call('/v1/issuing/cards', { type: 'virtual', ...input }, idempotencyKey));
    },
    async setStatus(cardId, status) {
      return cardOf(await call(`/v1/issuing/cards/${encodeURIComponent(cardId)}`, { status }));
    },
    async displaySession(cardId) {
      const session = await call(`/v1/issuing/cards/${encodeURIComponent(cardId)}/display_sessions`, {});
      return { url: String(session.url), expiresAt: new Date(Number(session.expires_at) * 1000) };
    },
  };
}
