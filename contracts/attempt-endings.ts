// How the money of a send ends an attempt's result: debited (settled) or given back (released). The
// workflow builds its result with these, and the step that settles stores the same result with the answer,
// so the fresh answer and the stored one are one value.
import type { AttemptResult, Released, Settled } from './attempt';
import { appendSteps } from './attempt-audit';

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
