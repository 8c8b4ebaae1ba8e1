// The payment provider adapter: speaks the provider's HTTP protocol at config.providerUrls.payments, with
// the attempt-derived Idempotency-Key on every dispatch and a bounded wait per call.
import {
  ProviderUnavailable,
  type PaymentOutcome,
  type PaymentProvider,
  type PaymentRequest,
  type SettlementRecord,
} from './provider';

export interface HttpPaymentOptions {
  baseUrl: string;
  timeoutMs: number;
  apiKey?: string;
}

function linked(signal: AbortSignal | undefined, timeoutMs: number): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  return signal ? AbortSignal.any([signal, timeout]) : timeout;
}

/** A payment's answer, from a dispatch or a status call: made, refused, or (5xx, 429, 409 in flight) not known yet. */
async function outcomeOf(response: Response): Promise<PaymentOutcome> {
  const body = (await response.json().catch(() => ({}))) as {
    id?: string;
    error?: { code?: string; message?: string };
  };
  if (response.status >= 500 || response.status === 429 || response.status === 409) {
    throw new ProviderUnavailable(`payment provider answered ${response.status}`, response.status);
  }
  if (response.ok && body.id) return { status: 'succeeded', paymentId: body.id };
  return {
    status: 'refused',
    code: body.error?.code ?? `http_${response.status}`,
    message: body.error?.message ?? 'refused',
  };
}

export function httpPaymentProvider(options: HttpPaymentOptions): PaymentProvider {
  const headers = (extra: Record<string, string> = {}) => ({
    'content-type': 'application/json',
    ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
    ...extra,
  });
  const call = async (path: string, init: RequestInit, signal?: AbortSignal): Promise<Response> => {
    try {
      return await fetch(`${options.baseUrl}${path}`, {
        ...init,
        signal: linked(signal, options.timeoutMs),
        redirect: 'error',
      });
    } catch (error) {
      throw new ProviderUnavailable(`payment provider unreachable: ${(error as Error).message}`);
    }
  };
  return {
    async pay(request: PaymentRequest, signal?: AbortSignal): Promise<PaymentOutcome> {
      const response = await call(
        '/v1/payments',
        {
          method: 'POST',
          headers: headers({ 'idempotency-key': request.idempotencyKey }),
          body: JSON.stringify({
            amount_minor: request.amountMinor.toString(),
            currency: request.currency,
            recipient: request.recipient,
            description: request.description,
            reference: request.reference,
            method: request.method,
            metadata: request.metadata,
          }),
        },
        signal,
      );
      return outcomeOf(response);
    },
    async status(idempotencyKey: string, signal?: AbortSignal): Promise<PaymentOutcome | null> {
      const response = await call(
        `/v1/payments?idempotency_key=${encodeURIComponent(idempotencyKey)}`,
        { method: 'GET', headers: headers() },
        signal,
      );
      if (response.status === 404) return null;
      return outcomeOf(response);
    },
    async settlements(signal?: AbortSignal): Promise<SettlementRecord[]> {
      const response = await call('/v1/settlements', { method: 'GET', headers: headers() }, signal);
      if (!response.ok)
        throw new ProviderUnavailable(`settlements answered ${response.status}`, response.status);
      const body = (await response.json()) as {
        settlements: Array<{
          payment_id: string;
          reference: string;
          amount_minor: string;
          currency: string;
          settled_at: string;
          metadata?: Record<string, string>;
        }>;
      };
      return body.settlements.map((s) => ({
        paymentId: s.payment_id,
        reference: s.reference,
        amountMinor: BigInt(s.amount_minor),
        currency: s.currency,
        settledAt: s.settled_at,
        metadata: s.metadata ?? {},
      }));
    },
  };
}
