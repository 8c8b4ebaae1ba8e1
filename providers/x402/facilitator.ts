// A client of the x402 facilitator API: POST /verify and POST /settle with
// `{x402Version, paymentPayload, paymentRequirements}`, answered with the @x402/core VerifyResponse and
// SettleResponse shapes. Used instead of the gateway's own chain calls when X402_FACILITATOR_URL is set.
import type {
  PaymentPayload,
  PaymentRequirements,
  SettleResponse,
  VerifyResponse,
} from '../../domain/payment-links/x402/x402-types';

/** The facilitator did not answer, or answered 5xx: whether it acted is unknown, so ask again later. */
export class FacilitatorUnavailable extends Error {}

export interface Facilitator {
  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse>;
  settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse>;
}

export function facilitatorClient(baseUrl: string, timeoutMs: number): Facilitator {
  const call = async <T>(
    operation: 'verify' | 'settle',
    payload: PaymentPayload,
    requirements: PaymentRequirements,
  ) => {
    let response: Response;
    try {
      response = await fetch(`${baseUrl.replace(/\/+$/, '')}/${operation}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          x402Version: payload.x402Version,
          paymentPayload: payload,
          paymentRequirements: requirements,
        }),
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'error',
      });
    } catch (error) {
      throw new FacilitatorUnavailable(
        `the facilitator did not answer /${operation}: ${(error as Error).message}`,
      );
    }
    if (response.status >= 500 || response.status === 429)
      throw new FacilitatorUnavailable(`the facilitator answered /${operation} with ${response.status}`);
    const body = (await response.json().catch(() => null)) as T | null;
    if (!body || typeof body !== 'object')
      throw new FacilitatorUnavailable(`the facilitator's /${operation} answer is not JSON`);
    return body;
  };
  return {
    verify: (payload, requirements) => call<VerifyResponse>('verify', payload, requirements),
    settle: (payload, requirements) => call<SettleResponse>('settle', payload, requirements),
  };
}
