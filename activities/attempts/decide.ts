// The happy path of an attempt whose send is idempotent, as one step: authorize, send, then settle or
// release with the result stored, inside one local activity where there were three (each of which the
// workflow entered its sandbox to take up). It stops wherever the engine's own loop must go on: not held,
// held by an earlier run (which may have sent it: the engine looks it up, never sends blindly), a send that
// failed or is not settled yet, or money that did not move. A retry of the whole step is safe: its
// authorization then answers `resumed`, and it stops there.
import { ApplicationFailure } from '@temporalio/activity';
import {
  FAMILY_TRAITS,
  type AttemptInput,
  type AttemptResult,
  type Authorized,
  type Decided,
  type FamilyCarry,
  type Released,
  type Sent,
  type SentAndEnded,
  type Settled,
} from '../../contracts/attempt';
import { appendSteps, type AuditStep } from '../../contracts/attempt-audit';
import { resultSoFar } from '../../contracts/attempt-endings';
import type { ToolChargeResolution } from '../../contracts/tool-charge';

interface After<S extends Sent> {
  attempt: AttemptInput;
  sent: S;
  resolution: ToolChargeResolution | null;
  holdId: string;
  audit: AuditStep[];
  carry: FamilyCarry;
  finish?: AttemptResult;
}

/** The engine's single steps the fold is made of (the activities themselves, or their stand-ins). */
export interface DecidingSteps {
  authorizeAttempt(attempt: AttemptInput): Promise<Authorized>;
  sendAttempt(attempt: AttemptInput, how: { carry: FamilyCarry; resent: boolean }): Promise<Sent>;
  settleAttempt(after: After<Extract<Sent, { status: 'succeeded' }>>): Promise<Settled>;
  releaseAttempt(after: After<Extract<Sent, { status: 'refused' }>>): Promise<Released>;
}

export async function decideAttempt(steps: DecidingSteps, attempt: AttemptInput): Promise<Decided> {
  const auth = await steps.authorizeAttempt(attempt);
  if (auth.kind !== 'held' || auth.resumed) return { auth };
  // The same trail the workflow keeps, built the same way, so the stored result is the one it returns.
  const audit: AuditStep[] = [];
  appendSteps(audit, auth.steps);
  const carry = auth.carry ?? null;
  let sent: Sent;
  try {
    sent = await steps.sendAttempt(attempt, { carry, resent: false });
  } catch (error) {
    // A failure no retry would change is an unknown outcome at once, as the engine reads it; any other is
    // the engine's to retry, under the same key.
    if (!(error instanceof ApplicationFailure && error.nonRetryable)) return { auth };
    sent = { status: 'unknown', message: error.message };
  }
  appendSteps(audit, sent.steps ?? []);
  return { auth, ...(await endSent(steps, attempt, { sent, holdId: auth.holdId, carry, audit })) };
}

/** The steps of a send that may not run twice, folded the same way (decideOnce). */
export interface OnceSteps extends Omit<DecidingSteps, 'sendAttempt'> {
  sendAttemptOnce(attempt: AttemptInput, how: { carry: FamilyCarry }): Promise<Sent | null>;
}

/** What a run of the step answers when an earlier run began the send: only the lookup can say more. */
export const BEGUN_BEFORE = 'an earlier run of the step began the call and may have made it';

/**
 * The happy path of an attempt whose send may not run twice, as one step: authorize, send once, then settle
 * or release with the result stored. The send's write-ahead mark is what makes the step safe to run again:
 * a run that finds it (the worker was lost mid-call, the step timed out and was retried) sends nothing and
 * answers an unknown outcome, which the engine hands to the lookup. It throws only before its send (the
 * authorization broke or refused, the mark did not commit), when nothing was sent.
 */
export async function decideOnce(steps: OnceSteps, attempt: AttemptInput): Promise<Decided> {
  const auth = await steps.authorizeAttempt(attempt);
  if (auth.kind !== 'held' || auth.resumed) return { auth };
  const audit: AuditStep[] = [];
  appendSteps(audit, auth.steps);
  const carry = auth.carry ?? null;
  const sent: Sent = (await steps.sendAttemptOnce(attempt, { carry })) ?? {
    status: 'unknown',
    message: BEGUN_BEFORE,
  };
  appendSteps(audit, sent.steps ?? []);
  return { auth, ...(await endSent(steps, attempt, { sent, holdId: auth.holdId, carry, audit })) };
}

/**
 * A send that may not run twice, made once with the money it moved: settled or released with the result
 * stored, or just its answer when the money's step failed (the engine then retries that step on its own).
 * A failure of the send itself is the engine's: an unknown outcome.
 */
export async function sendAndSettle(
  steps: DecidingSteps,
  attempt: AttemptInput,
  sofar: { holdId: string; carry: FamilyCarry; audit: AuditStep[] },
): Promise<SentAndEnded> {
  const sent = await steps.sendAttempt(attempt, { carry: sofar.carry, resent: false });
  const audit = [...sofar.audit];
  appendSteps(audit, sent.steps ?? []);
  return endSent(steps, attempt, { ...sofar, sent, audit });
}

/** Settles or releases what the send answered, with the result stored; stops at any other answer. */
async function endSent(
  steps: Pick<DecidingSteps, 'settleAttempt' | 'releaseAttempt'>,
  attempt: AttemptInput,
  { sent, holdId, carry, audit }: { sent: Sent; holdId: string; carry: FamilyCarry; audit: AuditStep[] },
): Promise<SentAndEnded> {
  if (sent.status !== 'succeeded' && sent.status !== 'refused') return { sent };
  const traits = FAMILY_TRAITS[attempt.family];
  const after = {
    attempt,
    resolution: null,
    holdId,
    audit: traits.storesOwnAnswers ? [...audit] : [],
    carry,
  };
  const wallet = { holdId, debitId: null, releaseId: null, insufficientFunds: false };
  const finish = (status: AttemptResult['status']) =>
    traits.storesOwnAnswers ? {} : { finish: resultSoFar(attempt, status, audit, wallet) };
  try {
    if (sent.status === 'succeeded')
      return { sent, settled: await steps.settleAttempt({ ...after, sent, ...finish('completed') }) };
    return { sent, released: await steps.releaseAttempt({ ...after, sent, ...finish('failed') }) };
  } catch {
    // The money's step failed (its transaction rolled back): the engine retries it until it lands.
    return { sent };
  }
}
