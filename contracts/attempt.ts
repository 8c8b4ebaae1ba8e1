// The one money-attempt engine's shapes: the families it knows (one spelling each, in the attempts table,
// metrics and the console), what its workflow is given and returns, and what each step of a family answers.
// Types and constants only, so workflow code can import them. A family's steps live in
// domain/attempts/families/<family>.ts; its HTTP answer in domain/attempts/answers.ts.
import type { ApprovalKind } from './approval-kinds';
import type { AuditStep } from './attempt-audit';
import type { SpendAnswer, SpendRequest, TermsSummary } from './consumer-spend';
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
  consumer_spend: SpendRequest;
  card_authorization: CardAuthorizationInput;
}
export type EngineFamily = keyof FamilyInputs;

/** One attempt of the engine: its family and that family's input. */
export type AttemptInput = { [F in EngineFamily]: { family: F; input: FamilyInputs[F] } }[EngineFamily];

/** What the engine's workflow knows of a family: the rest of it is its steps (activities/attempts/families). */
export interface FamilyTraits {
  /** The approval kind a held attempt is stored and replayed under (workflows/replays.ts). */
  approvalKind: ApprovalKind;
  /**
   * The send carries the attempt's idempotency key, so it may run again (as a local activity, retried); a
   * send that may not (an MCP tools/call) is made once behind a mark committed before it, and a run that
   * finds the mark (a lost worker, a timeout) sends nothing: its outcome is unknown.
   */
  sendIsIdempotent: boolean;
  /** Someone who knows what happened (the tenant, an operator) may resolve an unknown outcome. */
  resolvable: boolean;
  /**
   * The family words and stores each answer in the transaction that reaches it (a consumer spend's receipt,
   * mandate spend and ledger entries commit with their answer), so the engine stores none at the end.
   */
  storesOwnAnswers: boolean;
}

// `satisfies` keeps each family's approval kind literal, so a held attempt's payload is checked against it.
export const FAMILY_TRAITS = {
  wallet_execute: {
    approvalKind: 'wallet.execute',
    sendIsIdempotent: true,
    resolvable: false,
    storesOwnAnswers: false,
  },
  tool_charge: {
    approvalKind: 'tool_server.charge',
    sendIsIdempotent: false,
    resolvable: true,
    storesOwnAnswers: false,
  },
  consumer_spend: {
    approvalKind: 'consumer.spend',
    sendIsIdempotent: true,
    resolvable: false,
    storesOwnAnswers: true,
  },
  // Decided inside the issuer's deadline, never held for approval; the issuer's record answers its outcome.
  card_authorization: {
    approvalKind: 'card.authorization',
    sendIsIdempotent: true,
    resolvable: false,
    storesOwnAnswers: false,
  },
} satisfies Record<EngineFamily, FamilyTraits>;

/** What a family's authorize hands its later steps (plain JSON): a consumer spend's mandate terms. */
export interface FamilyCarries {
  wallet_execute: null;
  tool_charge: null;
  consumer_spend: ConsumerSpendCarry;
  card_authorization: null;
}

export type FamilyCarry = FamilyCarries[EngineFamily];

/** The mandate terms a held consumer spend settles under, and where its money leaves from. */
export interface ConsumerSpendCarry {
  terms: TermsSummary;
  /** The consumer's own account a TED leaves from. */
  sourceAccount: string | null;
}

/**
 * Which answer a family that words its own (storesOwnAnswers) stored, in the transaction that reached it:
 * the engine hands on this much, and whoever answers reads the stored answer (its HTTP status and body)
 * from the attempt's row, so no HTTP answer crosses the workflow.
 */
export interface StoredAnswer {
  stored: SpendAnswer['status'];
}

/** What a family that words its own answers hands the engine; histories recorded before StoredAnswer carry the whole answer. */
export type FamilyAnswer = StoredAnswer | SpendAnswer;

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
  | {
      kind: 'held';
      holdId: string;
      steps: AuditStep[];
      /** What the later steps need from the authorization (FamilyCarries); absent for families that need nothing. */
      carry?: FamilyCarry;
      /**
       * An earlier run already held money for this attempt and may have sent it: the engine looks the send up
       * first, and sends only what the other side never received.
       */
      resumed?: boolean;
    }
  /** Refused before any hold (wallet not active, insufficient funds): `failure` as the family tells it. */
  | {
      kind: 'refused';
      insufficientFunds: boolean;
      failure: AttemptFailure | null;
      steps: AuditStep[];
      answer?: FamilyAnswer;
    }
  | { kind: 'denied'; denial: Denial; steps: AuditStep[] }
  | {
      kind: 'requires_approval';
      /** The policy rule that held it; null when something else did (a consumer mandate's per-transaction cap). */
      denial: Denial | null;
      approvalId: string;
      expiresAt: string;
      steps: AuditStep[];
      answer?: FamilyAnswer;
    }
  /** A late run of an attempt another run already answered: that answer, and nothing done again. */
  | { kind: 'answered'; status: AttemptStatus; answer: FamilyAnswer; steps: AuditStep[] };

/**
 * What became of the send: answered, refused, accepted with its settlement still to come (`processing`),
 * or unknown (the answer never came). `steps` are the family's words for it, when it has any.
 */
export type Sent =
  | {
      status: 'succeeded';
      paymentId: string | null;
      output: Record<string, unknown> | null;
      steps?: AuditStep[];
    }
  | {
      status: 'refused';
      code: string;
      message: string;
      output: Record<string, unknown> | null;
      steps?: AuditStep[];
    }
  | { status: 'processing'; paymentId: string; steps?: AuditStep[] }
  | { status: 'unknown'; message: string; steps?: AuditStep[] };

/**
 * A status lookup by the attempt's idempotency key: known now, accepted and still settling, never received
 * (sent again only when the caller presented the attempt again, or an earlier run may have sent it), or
 * still uncertain (with the answer the family stored for it, when it stores its own).
 */
export type Looked =
  | { sent: Exclude<Sent, { status: 'unknown' }>; steps: AuditStep[] }
  | { sent: { status: 'not_received' }; steps: AuditStep[] }
  | {
      sent: { status: 'uncertain'; message: string };
      steps: AuditStep[];
      answer?: FamilyAnswer;
    };

/** What a lookup can say for sure: everything but `uncertain`. */
export type Known = Exclude<Looked['sent'], { status: 'uncertain' }>;

/** The refusal the engine makes of a send the other side never received, when it releases it. */
export const NOT_RECEIVED = 'not_received';

/** Why the engine looks a send up: its answer never came, it is settling, or an earlier run may have made it. */
export type LookupReason = 'unknown' | 'processing' | 'resumed';

export interface Settled {
  debitId: string;
  paymentId: string | null;
  output: Record<string, unknown> | null;
  split: ChargeSplitMinor | null;
  steps: AuditStep[];
  answer?: FamilyAnswer;
}

export interface Released {
  releaseId: string;
  failure: AttemptFailure;
  output: Record<string, unknown> | null;
  steps: AuditStep[];
  answer?: FamilyAnswer;
}

/**
 * A send with the money it moved, when one step made both: the send's answer, then the settlement or the
 * release once the money moved (with the result stored, for a family the engine stores answers for).
 */
export interface SentAndEnded {
  sent: Sent;
  settled?: Settled;
  released?: Released;
}

/**
 * How far one step that authorizes, sends and settles (or releases) got: the authorization always, the
 * rest as far as it went. The engine goes on from wherever it stopped.
 */
export interface Decided extends Partial<SentAndEnded> {
  auth: Authorized;
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
  /** The answer the family stored itself (storesOwnAnswers), else absent: answers.ts words it. */
  answer?: FamilyAnswer;
}

/**
 * The engine's answer to a waiting caller: the result, or that the outcome is not known yet (with the
 * answer the family stored for that, when it stores its own).
 */
export type AttemptAnswer = AttemptResult | { status: 'uncertain'; detail: string; answer?: FamilyAnswer };

/** What a running attempt has done so far: its audit, for a caller streaming it. */
export interface AttemptProgress {
  audit: AuditStep[];
}

/** An attempt's HTTP answer: the status and body exactly as stored for replays. */
export interface AttemptReply {
  httpStatus: number;
  body: Record<string, unknown>;
}

/** The approval kind a family's held attempt is stored under, as its literal. */
export type FamilyApprovalKind<F extends EngineFamily> = (typeof FAMILY_TRAITS)[F]['approvalKind'];
