// The one money-attempt engine's shapes: the families it knows (one spelling each, in the attempts table,
// metrics and the console), what its workflow is given and returns, and what each step of a family answers.
// Types and constants only, so workflow code can import them. A family's steps live in
// domain/attempts/families/<family>.ts; its HTTP answer in domain/attempts/answers.ts.
import type { AuditStep } from './attempt-audit';
import type { CardAuthorizationInput } from './card-authorization';
import type { Denial, SpendInput, WalletSteps } from './spend';
import type { ToolChargeInput } from './tool-charge';

/** Every money-out family, as the attempts table, the metrics and the console spell it. */
export const ATTEMPT_FAMILIES = [
  'wallet_execute',
  'tool_charge',
  'consumer_spend',
  'card_authorization',
] as const;
export type AttemptFamily = (typeof ATTEMPT_FAMILIES)[number];

export const FAMILY_LABELS: Record<AttemptFamily, string> = {
  wallet_execute: 'wallet execute',
  tool_charge: 'paid tool call',
  consumer_spend: 'consumer spend',
  card_authorization: 'card authorization',
};

/** The workflow type of the one engine; attempts claimed before it keep their own (attempts.workflow_type). */
export const ATTEMPT_WORKFLOW = 'moneyAttempt';

/** What each family of the engine is given. */
export interface FamilyInputs {
  wallet_execute: SpendInput;
  tool_charge: ToolChargeInput;
  card_authorization: CardAuthorizationInput;
}
export type EngineFamily = keyof FamilyInputs;

/** One attempt of the engine: its family and that family's input. */
export type AttemptInput = { [F in EngineFamily]: { family: F; input: FamilyInputs[F] } }[EngineFamily];

/** What the engine's workflow knows of a family: the rest of it is its steps (activities/attempts/families). */
export interface FamilyTraits {
  /** The approval kind a held attempt is stored and replayed under (workflows/replays.ts). */
  approvalKind: string;
  /**
   * The send carries the attempt's idempotency key, so it may run again (as a local activity, retried); a
   * send that may not (an MCP tools/call) runs once as a scheduled activity, and a lost worker is unknown.
   */
  sendIsIdempotent: boolean;
  /** Someone who knows what happened (the tenant, an operator) may resolve an unknown outcome. */
  resolvable: boolean;
}

export const FAMILY_TRAITS: Record<EngineFamily, FamilyTraits> = {
  wallet_execute: { approvalKind: 'wallet.execute', sendIsIdempotent: true, resolvable: false },
  tool_charge: { approvalKind: 'tool_server.charge', sendIsIdempotent: false, resolvable: true },
  // Decided inside the issuer's deadline, never held for approval; the issuer's record answers its outcome.
  card_authorization: { approvalKind: 'card.authorization', sendIsIdempotent: true, resolvable: false },
};

export interface AttemptFailure {
  code: string;
  message: string;
}

export interface ChargeSplitMinor {
  tenantShareMinor: string;
  feeMinor: string;
}

// What the family's steps answer the engine. Each carries the audit steps it worded.

export type Authorized =
  | { kind: 'held'; holdId: string; steps: AuditStep[] }
  /** Refused before any hold (wallet not active, insufficient funds): `failure` as the family tells it. */
  | { kind: 'refused'; insufficientFunds: boolean; failure: AttemptFailure | null; steps: AuditStep[] }
  | { kind: 'denied'; denial: Denial; steps: AuditStep[] }
  | { kind: 'requires_approval'; denial: Denial; approvalId: string; expiresAt: string; steps: AuditStep[] };

/** What became of the send: answered, refused, or unknown (the answer never came). */
export type Sent =
  | { status: 'succeeded'; paymentId: string | null; output: Record<string, unknown> | null }
  | { status: 'refused'; code: string; message: string; output: Record<string, unknown> | null }
  | { status: 'unknown'; message: string };

/** A status lookup of an unknown send, by the attempt's idempotency key: known now, or still uncertain. */
export type Looked =
  | { sent: Exclude<Sent, { status: 'unknown' }>; steps: AuditStep[] }
  | {
      sent: { status: 'uncertain'; message: string };
      steps: AuditStep[];
    };

export interface Settled {
  debitId: string;
  paymentId: string | null;
  output: Record<string, unknown> | null;
  split: ChargeSplitMinor | null;
  steps: AuditStep[];
}

export interface Released {
  releaseId: string;
  failure: AttemptFailure;
  output: Record<string, unknown> | null;
  steps: AuditStep[];
}

export type AttemptStatus = 'completed' | 'failed' | 'denied' | 'requires_approval';

/** The attempt's domain result: what the workflow returns and the API turns into its answer. */
export interface AttemptResult {
  family: EngineFamily;
  attemptId: string;
  status: AttemptStatus;
  audit: AuditStep[];
  wallet: WalletSteps;
  denial: Denial | null;
  approval: { id: string; expiresAt: string } | null;
  failure: AttemptFailure | null;
  providerPaymentId: string | null;
  output: Record<string, unknown> | null;
  split: ChargeSplitMinor | null;
}

/** The engine's answer to a waiting caller: the result, or that the outcome is not known yet. */
export type AttemptAnswer = AttemptResult | { status: 'uncertain'; detail: string };

/** An attempt's HTTP answer: the status and body exactly as stored for replays. */
export interface AttemptReply {
  httpStatus: number;
  body: Record<string, unknown>;
}
