// The seams between consumer payments and the areas it builds on. Payments never reimplement these:
// the mandate (verify the signature and read its terms, record a settled spend), the consumer's balance
// (hold, debit, release in the ledger), policy rules, and approval holds. wiring.ts binds them.
import type { SpendRequest } from '../../contracts/consumer-spend';
import type { CommonQueryMethods, DatabaseTransactionConnection } from '../../runtime/database';
import type { EventScope } from '../events/record';

export interface MandateTerms {
  mandateId: string;
  consumerId: string;
  agentId: string;
  purpose: string;
  currency: string;
  /** The funding rail the consumer signed (`pix-consent`, `pix-partner`). */
  fundingRail: string;
  /** The consumer's funding source the mandate is bound to (a `pix-consent` pull goes through it at the PSP). */
  fundingSourceId: string;
  capMinor: bigint;
  perTxCapMinor: bigint;
  merchantAllowlist: string[];
  withdrawalAllowlist: string[] | null;
  periodicCap: { window: string; capMinor: bigint } | null;
  slots: Array<{ currency: string; rail: string; capMinor: bigint; perTxCapMinor: bigint }>;
  expiresAt: string;
  /** For the receipt: the mandate as signed. */
  nonce: string;
  scope: string;
  signature: string;
}

export interface PresentedMandate {
  mandate: unknown;
  signature: string;
  agentId: string;
}

export interface MandateSeam {
  /**
   * Checks the HMAC over the canonical mandate, the signed agent, and that the mandate is active and
   * unexpired, locking it until the transaction ends. Throws the mandates area's refusals as ApiError.
   */
  verify(
    tx: DatabaseTransactionConnection,
    scope: EventScope,
    presented: PresentedMandate,
  ): Promise<MandateTerms>;
  /** Reads a registered mandate's signed document, for the spend on `/v1/consumers/mandates/{id}/spend` (one read, no transaction). */
  registered(db: CommonQueryMethods, scope: EventScope, mandateId: string): Promise<unknown>;
  /**
   * Takes the mandate's share of the lock order before a settle touches the consumer's wallet: a key-share
   * lock, so settles run side by side while an authorization (which locks the mandate for update and then
   * the wallet) waits for them, or they for it, and never each for the other.
   */
  lockForSettle(tx: DatabaseTransactionConnection, scope: EventScope, mandateId: string): Promise<void>;
  /** Records the settled spend in the mandates area's seam table; a retry finds its own row. */
  recordSpend(
    tx: DatabaseTransactionConnection,
    scope: EventScope,
    spend: { mandateId: string; amountMinor: bigint; currency: string; attemptId: string },
  ): Promise<void>;
}

/**
 * Where a spend's money comes from: the consumer's own sub-account (TED, and Pix on a partner account),
 * or a pull at the PSP through the consumer's consented funding source (Pix under `pix-consent`), which
 * the ledger records as a pass-through on the project's clearing account.
 */
export type Funding = 'sub_account' | 'consent_pull';

export interface MoneyMove {
  consumerId: string;
  mandateId: string;
  attemptId: string;
  currency: string;
  amountMinor: bigint;
  rail: 'pix' | 'ted';
  funding: Funding;
  /** The agent the spend was decided as (its caller): what a budget counts the hold or pass-through under. */
  agentId?: string;
}

export interface FundsSeam {
  /**
   * Holds the amount: on the consumer's balance, or for a consent pull only the attempt's claim (its caps
   * are already reserved and nothing rests with the gateway). A retry of the same attempt finds its hold.
   */
  hold(
    tx: DatabaseTransactionConnection,
    scope: EventScope,
    move: MoneyMove,
  ): Promise<{ holdId: string } | { insufficientFunds: true; availableMinor: bigint }>;
  /** Debits the hold; a consent pull posts its pass-through (in from the funding source, out to the payee) instead. */
  debit(
    tx: DatabaseTransactionConnection,
    scope: EventScope,
    move: MoneyMove & { externalRef: string },
  ): Promise<{ debitId: string }>;
  release(
    tx: DatabaseTransactionConnection,
    scope: EventScope,
    move: MoneyMove,
  ): Promise<{ releaseId: string | null }>;
  /** The consumer's own sub-account TED money leaves from. */
  sourceAccount(tx: DatabaseTransactionConnection, scope: EventScope, consumerId: string): Promise<string>;
}

export type PolicyDecision =
  | { decision: 'allow'; ruleId: string | null }
  | { decision: 'deny'; reason: string; ruleType: string; ruleId: string; ruleName: string | null }
  | { decision: 'approval'; reason: string; ruleType: string; ruleId: string; ruleName: string | null };

export interface PolicySeam {
  evaluate(
    tx: DatabaseTransactionConnection,
    scope: EventScope,
    /** `approved`: a person approved this spend, which satisfies approval-required rules. */
    call: { agentId: string; toolName: string; amountMinor: bigint; currency: string; approved: boolean },
  ): Promise<PolicyDecision>;
}

export interface ApprovalSeam {
  /** Raises an approval hold whose approval replays this attempt; one per attempt. */
  raise(
    tx: DatabaseTransactionConnection,
    scope: EventScope,
    held: {
      attemptId: string;
      agentId: string;
      sessionId: string | null;
      reason: string;
      ruleId: string | null;
      ruleName: string | null;
      payload: SpendRequest;
    },
  ): Promise<{ approvalId: string; expiresAt: string }>;
}

export interface ConsumerPaymentSeams {
  mandates: MandateSeam;
  funds: FundsSeam;
  policies: PolicySeam;
  approvals: ApprovalSeam;
}
