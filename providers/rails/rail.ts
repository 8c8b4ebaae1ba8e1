// The interface the spend-attempt workflow dispatches through, whatever the rail: send once under an
// idempotency key derived from the attempt, and ask what became of a send whose answer never came.
// Outcomes are normalized so the workflow never sees a provider's wire format.

export type Rail = 'pix' | 'ted';

export interface RailDispatch {
  /** Derived from the organization and attempt: a resend under it can never pay twice. */
  idempotencyKey: string;
  /** The attempt id, echoed back by the provider for reconciliation. */
  reference: string;
  amountMinor: bigint;
  description: string;
  /**
   * Pix: the DICT key and the code's txid; with `fundingSourceId` the PSP pulls the amount from the consumer's
   * consented funding source (a `pix-consent` mandate) instead of the gateway's account.
   */
  pix?: { key: string; txid: string | null; fundingSourceId?: string };
  /** TED: the consumer's own sub-account and the destination. */
  ted?: {
    sourceAccount: string;
    ispb: string;
    branch: string;
    account: string;
    taxId: string | null;
    name: string | null;
    accountType: string | null;
  };
  /** Where the provider posts its settlement notice. */
  notificationUrl: string | null;
}

export type RailOutcome =
  | { status: 'settled'; providerPaymentId: string; endToEndId: string | null; settledAt: string }
  | { status: 'processing'; providerPaymentId: string }
  | { status: 'refused'; code: string; reason: string; message: string };

/** The provider may or may not have acted: the answer never came, or came as a 5xx after the request was sent. */
export class DispatchUncertain extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'DispatchUncertain';
  }
}

export interface RailProvider {
  dispatch(request: RailDispatch, signal?: AbortSignal): Promise<RailOutcome>;
  /** null: the provider never received a request under this key, so resending is safe. */
  status(idempotencyKey: string, signal?: AbortSignal): Promise<RailOutcome | null>;
}

export function linkedSignal(signal: AbortSignal | undefined, timeoutMs: number): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  return signal ? AbortSignal.any([signal, timeout]) : timeout;
}

/** One HTTP call with a deadline; any transport failure means the provider's outcome is unknown. */
export async function callProvider(
  url: string,
  init: RequestInit,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<{ status: number; body: Record<string, unknown> }> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: linkedSignal(signal, timeoutMs), redirect: 'error' });
  } catch (error) {
    throw new DispatchUncertain(`provider did not answer: ${(error as Error).message}`);
  }
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (response.status >= 500 || response.status === 429)
    throw new DispatchUncertain(`provider answered ${response.status}`, response.status);
  return { status: response.status, body };
}
