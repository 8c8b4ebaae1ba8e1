// The payment provider interface the spend workflow dispatches through: one operation, with outcomes
// normalized so the workflow never sees a provider's wire format.

export interface PaymentRequest {
  /** Derived from the attempt, so a retried dispatch can never pay twice. */
  idempotencyKey: string;
  reference: string;
  amountMinor: bigint;
  currency: string;
  recipient: string;
  description: string;
  method: string | null;
  /** Echoed on the provider's settlement records, so reconciliation can tell tenants apart. */
  metadata: Record<string, string>;
}

export type PaymentOutcome =
  { status: 'succeeded'; paymentId: string } | { status: 'refused'; code: string; message: string };

export interface SettlementRecord {
  paymentId: string;
  reference: string;
  amountMinor: bigint;
  currency: string;
  settledAt: string;
  metadata: Record<string, string>;
}

export interface PaymentProvider {
  /** Business refusals come back as `refused`; transport failures and 5xx throw ProviderUnavailable (retryable). */
  pay(request: PaymentRequest, signal?: AbortSignal): Promise<PaymentOutcome>;
  /**
   * What became of the payment sent under this idempotency key: its outcome, or null when the provider never
   * received it (resending is then safe). Throws ProviderUnavailable when the provider cannot say.
   */
  status(idempotencyKey: string, signal?: AbortSignal): Promise<PaymentOutcome | null>;
  settlements(signal?: AbortSignal): Promise<SettlementRecord[]>;
}

export class ProviderUnavailable extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ProviderUnavailable';
  }
}
