// The seam every link-payment rail plugs into: open a charge the buyer pays (and what they pay with),
// and ask the rail whether a charge was paid. Pix is the first implementation (providers/pix/cob-adapter.ts);
// x402 will answer the same two questions from the chain.

export interface LinkCharge {
  /** The rail's reference of the charge (Pix: the txid). */
  ref: string;
  /** What the buyer pays with (Pix: the BR Code, `pixCopiaECola`). */
  payCode: string;
}

export type ChargeState =
  | { state: 'open' }
  | { state: 'paid'; providerRef: string; amountMinor: bigint }
  | { state: 'closed'; reason: string };

export interface OpenChargeRequest {
  ref: string;
  amountMinor: bigint;
  payTo: string;
  description: string;
  expiresInSeconds: number;
  /** Where the rail should notify a paid charge; the notice is a hint, the state is always asked. */
  notificationUrl: string | null;
}

export interface LinkRail {
  openCharge(request: OpenChargeRequest): Promise<LinkCharge>;
  chargeState(ref: string): Promise<ChargeState>;
}
