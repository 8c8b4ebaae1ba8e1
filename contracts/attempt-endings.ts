// How the money of a send ends an attempt's result: debited (settled) or given back (released). The
// workflow builds its result with these, and the step that settles stores the same result with the answer,
// so the fresh answer and the stored one are one value.
import type { AttemptInput, AttemptResult, AttemptStatus, Released, Settled } from './attempt';
import { appendSteps, type AuditStep } from './attempt-audit';
import type { WalletSteps } from './spend';

/** The attempt's result with its status, audit and wallet steps so far, and nothing else yet. */
export function resultSoFar(
  attempt: AttemptInput,
  status: AttemptStatus,
  audit: AuditStep[],
  wallet: WalletSteps,
): AttemptResult {
  return {
    family: attempt.family,
    attemptId: attempt.input.attemptId,
    status,
    audit,
    wallet,
    denial: null,
    approval: null,
    failure: null,
    providerPaymentId: null,
    output: null,
    split: null,
  };
}

/** The result once the settlement debited the hold; `sofar` is the attempt's result before it. */
export function settledResult(sofar: AttemptResult, settled: Settled): AttemptResult {
  const audit = [...sofar.audit];
  appendSteps(audit, settled.steps);
  return {
    ...sofar,
    status: 'completed',
    audit,
    wallet: { ...sofar.wallet, debitId: settled.debitId },
    providerPaymentId: settled.paymentId,
    output: settled.output,
    split: settled.split,
    answer: settled.answer,
  };
}

/** The result once the hold was released after a refused send; `sofar` is the attempt's result before it. */
export function releasedResult(sofar: AttemptResult, released: Released): AttemptResult {
  const audit = [...sofar.audit];
  appendSteps(audit, released.steps);
  return {
    ...sofar,
    status: 'failed',
    audit,
    wallet: { ...sofar.wallet, releaseId: released.releaseId },
    failure: released.failure,
    output: released.output,
    answer: released.answer,
  };
}
