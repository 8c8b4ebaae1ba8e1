// What a money-out family is to the engine: its steps, each one short and idempotent (a retry finds its own
// earlier write), each answering the audit steps it worded. The engine's workflow (workflows/attempt.ts)
// runs them in one order for every family; a family's traits are in contracts/attempt.ts.
import type { AuditStep } from '../../contracts/attempt-audit';
import type {
  Authorized,
  EngineFamily,
  FamilyAnswer,
  FamilyCarries,
  FamilyInputs,
  LookupReason,
  Looked,
  Released,
  Sent,
  Settled,
} from '../../contracts/attempt';
import type { ToolChargeResolution } from '../../contracts/tool-charge';
import type { ActivityDeps } from '../deps';

/**
 * The attempt so far, for a family that words its own answers (storesOwnAnswers): the audit its answer
 * carries (empty for the others), and what its authorization handed on (FamilyCarries).
 */
export interface SoFar<F extends EngineFamily> {
  audit: AuditStep[];
  carry: FamilyCarries[F];
}

export interface AfterSend<F extends EngineFamily, S extends Sent['status']> extends SoFar<F> {
  input: FamilyInputs[F];
  sent: Extract<Sent, { status: S }>;
  /** Set when someone who knows resolved an unknown outcome: the send's answer is then theirs. */
  resolution: ToolChargeResolution | null;
  holdId: string;
}

/** Why and how the engine asks what became of a send. */
export interface Lookup {
  /** The send's unknown answer, as the failure told it. */
  message: string;
  /** 0 for the first lookup of an unknown answer, then one more for each time it asks again. */
  round: number;
  reason: LookupReason;
  /** The caller presented the attempt again since the last lookup. */
  presented: boolean;
}

export interface ReleasedIfHeld {
  releaseId: string | null;
  steps: AuditStep[];
  answer?: FamilyAnswer;
}

/** The failure type of a send that may not run twice when it broke after its mark but before it started. */
export const NOTHING_SENT = 'nothing_sent';

export interface AttemptFamilySteps<F extends EngineFamily> {
  /** The policy gate and a hold for the amount (one transaction), an approval for a held call, or a refusal. */
  authorize(deps: ActivityDeps, input: FamilyInputs[F]): Promise<Authorized>;
  /**
   * Sends the attempt to whoever pays it, under its idempotency key when the family has one (`resent`: again,
   * the other side having said it never received it).
   */
  send(
    deps: ActivityDeps,
    input: FamilyInputs[F],
    how: { carry: FamilyCarries[F]; resent: boolean },
  ): Promise<Sent>;
  /**
   * The send of a family whose send may not run twice (sendIsIdempotent false), made in the step that
   * authorized it: a mark that it begins commits first, so a run that finds the mark (an earlier one was lost
   * or timed out, and may have sent it) answers null and sends nothing. It throws only when nothing was sent:
   * before the mark committed (the step is run again), or after it with a non-retryable NOTHING_SENT when
   * the send never started (the engine releases the hold). Any failure once it started is an unknown outcome.
   */
  sendOnce?(
    deps: ActivityDeps,
    input: FamilyInputs[F],
    how: { carry: FamilyCarries[F] },
  ): Promise<Sent | null>;
  /**
   * Asks what became of a send whose answer never came (`round` 0 first), or that is settling. Never throws
   * for the other side's trouble: a payment that may have left stays `uncertain`, and only `not received`
   * releases (or, when the engine may, sends again).
   */
  lookup(deps: ActivityDeps, input: FamilyInputs[F], lookup: Lookup, sofar: SoFar<F>): Promise<Looked>;
  /** Debits the hold (with whatever the family credits in the same transaction). */
  settle(deps: ActivityDeps, after: AfterSend<F, 'succeeded'>): Promise<Settled>;
  /** Returns the hold. */
  release(deps: ActivityDeps, after: AfterSend<F, 'refused'>): Promise<Released>;
  /** Frees what an attempt that broke before its send may hold (its authorization may have committed). */
  releaseIfHeld(
    deps: ActivityDeps,
    input: FamilyInputs[F],
    message: string,
    sofar: SoFar<F>,
  ): Promise<ReleasedIfHeld>;
}
