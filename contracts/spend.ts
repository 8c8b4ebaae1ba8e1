// The shapes a spend attempt passes between the API, its workflow and its activities. Types only, so
// workflow code can import them.
import type { Environment } from './environment';

export interface SpendInput {
  orgId: string;
  projectId: string;
  environment: Environment;
  attemptId: string;
  walletId: string;
  /** The agent the policy rules see: the wallet's agent_id, or the wallet id when it has none. */
  agentId: string;
  amountMinor: string;
  currency: string;
  recipient: string;
  description: string;
  mandateId: string;
  purpose: string | null;
  preferredMethod: string | null;
  targetCurrency: string | null;
  metadata: Record<string, unknown>;
  requestId: string;
  /** Set when an approved call is replayed: approval-required rules are satisfied. */
  approvalId?: string;
  /** The tool policy rules see; `wallet.execute` when unset. */
  toolName?: string;
  /** Set when the attempt pays through a catalog provider's money tool instead of the payment provider. */
  providerTool?: ProviderToolSpend;
}

/** A catalog provider tool call an attempt makes: the arguments sent upstream, the gateway's own removed. */
export interface ProviderToolSpend {
  serverId: string;
  tool: string;
  arguments: Record<string, unknown>;
}

export type { AuditStep } from './attempt-audit';

export type SpendStatus = 'completed' | 'denied' | 'requires-approval' | 'failed';

export interface WalletSteps {
  holdId: string | null;
  debitId: string | null;
  releaseId: string | null;
  insufficientFunds: boolean;
}

/** GatewayPaymentResult, plus the policy-denial fields when the call was denied or held. */
export interface SpendOutcome {
  httpStatus: number;
  status: SpendStatus;
  body: Record<string, unknown>;
  providerPaymentId: string | null;
}

export interface Denial {
  reason: string;
  ruleType: string;
  ruleId: string;
  ruleName: string;
}

export type Authorization =
  | {
      kind: 'held';
      holdId: string;
      evaluationId: string;
      ruleId: string | null;
      /** The hold is an earlier run's of this attempt (found by its evaluation row), which may have sent it. */
      resumed?: true;
    }
  | { kind: 'insufficient_funds'; evaluationId: string; available: string }
  | { kind: 'wallet_not_active'; status: string }
  | { kind: 'denied'; denial: Denial; evaluationId: string }
  | {
      kind: 'requires_approval';
      denial: Denial;
      evaluationId: string;
      approvalId: string;
      expiresAt: string;
      ttlSeconds: number;
    };

export type Dispatch =
  | { status: 'succeeded'; paymentId: string }
  | { status: 'refused'; code: string; message: string }
  | { status: 'unreachable'; message: string };

/** What the provider says became of a dispatch whose answer never came. */
export type DispatchStatus =
  | { status: 'succeeded'; paymentId: string }
  | { status: 'refused'; code: string; message: string }
  /** The provider never received it: nothing moved, and resending under the same key is safe. */
  | { status: 'not_received' }
  /** The provider could not say either: the money may have left, so it stays held. */
  | { status: 'uncertain'; message: string };

/** The attempt's answer to a caller: its outcome, or that the provider has not said yet (present it again). */
export type SpendAnswer = SpendOutcome | { status: 'provider_uncertain'; detail: string };
