// The one money attempt, whatever its family (wallet execute, paid tool call): authorize (the policy gate and
// a hold, one transaction), send, then settle (debit) or release, and the result stored for idempotent
// replays; every step lands in the audit trail, worded by the family (activities/attempts/families).
//
// An unknown outcome follows one protocol: the family is asked what became of the send (a status lookup by
// the attempt's idempotency key) until it can say. While it cannot, the attempt is `uncertain`: the money
// stays held, a caller presenting the attempt again has it ask once more, and someone who knows (for a
// family that allows it) may resolve it. `not received` is the only answer that releases.
import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  FAMILY_TRAITS,
  type AttemptAnswer,
  type AttemptInput,
  type AttemptResult,
  type AttemptStatus,
  type Sent,
} from '../contracts/attempt';
import { appendStep, appendSteps, type AuditStep } from '../contracts/attempt-audit';
import {
  AttemptResolveFailure,
  attemptAnswerUpdate,
  attemptResolveUpdate,
  attemptResultQuery,
} from '../contracts/attempt-messages';
import type { WalletSteps } from '../contracts/spend';
import type { ToolChargeResolution } from '../contracts/tool-charge';
import { startAttemptApprovalHold } from './attempt-approval-hold';

// Ledger steps are short, idempotent Postgres transactions: local activities run them inside the workflow
// task (results recorded as markers), saving a server round trip per step; a crash simply re-runs them.
const deciding = proxyLocalActivities<Activities>({
  startToCloseTimeout: '15 seconds',
  localRetryThreshold: '10 seconds',
  retry: {
    initialInterval: '200 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
    maximumAttempts: 20,
    nonRetryableErrorTypes: ['not_found'],
  },
});
// Ending an attempt: the steps after a send (debit, release, storing the result) and the release of an
// attempt that broke before it. Each is idempotent and must land for the attempt to end, so an outage only
// delays them; they are never given up on.
const ending = proxyLocalActivities<Activities>({
  startToCloseTimeout: '15 seconds',
  localRetryThreshold: '10 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
});
// An idempotent send carries the attempt's key, so retrying it can never pay twice: it runs inside the
// workflow task, and a crash re-runs it under the same key.
const idempotentSend = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  localRetryThreshold: '10 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 3,
  },
});
// A send that may not run twice is scheduled once: a lost worker or activity is an unknown outcome.
const onceSend = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 1 },
});
// The lookup never throws for the other side's trouble (it says `uncertain`); retries cover worker loss, for
// as long as it lasts: a payment that may have left is never given up on.
const lookups = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** How long an uncertain attempt waits for the caller before it asks again by itself. */
const UNCERTAIN_RECHECK = '1 hour';

const failureMessage = (error: unknown): string =>
  error instanceof ActivityFailure ? (error.cause?.message ?? error.message) : String(error);

export async function moneyAttempt(attempt: AttemptInput): Promise<AttemptResult> {
  const { input } = attempt;
  const traits = FAMILY_TRAITS[attempt.family];
  let result: AttemptResult | null = null;
  let uncertain: string | null = null;
  let checks = 0;
  let presented = false;
  // Set once the send's answer is known to be lost, before the family marks it so: a resolution sent as soon
  // as the attempt reads uncertain is taken, never refused for arriving first.
  let awaitingVerdict = false;
  let verdict: ToolChargeResolution | null = null;

  setHandler(attemptResultQuery, () => result);
  setHandler(attemptAnswerUpdate, async (): Promise<AttemptAnswer> => {
    if (result === null && uncertain !== null) {
      // Presented again while nobody could say: ask once more before answering.
      const seen = checks;
      presented = true;
      await condition(() => result !== null || checks > seen || verdict !== null);
    } else {
      await condition(() => result !== null || uncertain !== null);
    }
    return result ?? { status: 'uncertain', detail: uncertain ?? 'the outcome is not known yet' };
  });
  // The first resolution wins; a repeat of it waits for (or answers) the settled result.
  setHandler(
    attemptResolveUpdate,
    async (said): Promise<AttemptResult> => {
      verdict ??= said;
      await condition(() => result !== null);
      return result!;
    },
    {
      validator: (said) => {
        const first = verdict as ToolChargeResolution | null;
        if (first !== null && first.outcome !== said.outcome)
          throw ApplicationFailure.nonRetryable(
            `The charge was already resolved as ${first.outcome}`,
            AttemptResolveFailure.ResolvedOtherwise,
            { outcome: first.outcome },
          );
        if (first === null && !(awaitingVerdict && traits.resolvable))
          throw ApplicationFailure.nonRetryable(
            'The charge is not waiting for a resolution',
            AttemptResolveFailure.NotUncertain,
          );
      },
    },
  );

  const audit: AuditStep[] = [];
  const wallet: WalletSteps = { holdId: null, debitId: null, releaseId: null, insufficientFunds: false };
  const ended = (status: AttemptStatus, extra: Partial<AttemptResult> = {}): AttemptResult => ({
    family: attempt.family,
    attemptId: input.attemptId,
    status,
    audit,
    wallet,
    denial: null,
    approval: null,
    failure: null,
    providerPaymentId: null,
    output: null,
    split: null,
    ...extra,
  });

  /** Asks until the outcome is known, or someone who knows resolves it. */
  const settleUnknown = async (
    message: string,
  ): Promise<{ sent: Exclude<Sent, { status: 'unknown' }>; resolution: ToolChargeResolution | null }> => {
    awaitingVerdict = true;
    for (let round = 0; ; round++) {
      const looked = await lookups.lookupAttempt({ attempt, message, round });
      appendSteps(audit, looked.steps);
      if (looked.sent.status !== 'uncertain') {
        uncertain = null;
        return { sent: looked.sent, resolution: null };
      }
      uncertain = looked.sent.message;
      checks++;
      await condition(() => presented || verdict !== null, UNCERTAIN_RECHECK);
      presented = false;
      if (verdict !== null) {
        const resolution: ToolChargeResolution = verdict;
        uncertain = null;
        appendStep(audit, 'resolve', 'pass', `resolved as ${resolution.outcome} by ${resolution.resolvedBy}`);
        return {
          sent:
            resolution.outcome === 'succeeded'
              ? { status: 'succeeded', paymentId: null, output: null }
              : { status: 'refused', code: 'resolved_failed', message: 'resolved as failed', output: null },
          resolution,
        };
      }
    }
  };

  // Set just before the send: from then on the other side may have acted on it.
  let sending = false;
  /** Authorizes, sends and settles: the attempt's result, or a failure that broke it. */
  const decide = async (): Promise<AttemptResult> => {
    const auth = await deciding.authorizeAttempt(attempt);
    appendSteps(audit, auth.steps);
    if (auth.kind === 'refused') {
      wallet.insufficientFunds = auth.insufficientFunds;
      return ended('failed', { failure: auth.failure });
    }
    if (auth.kind === 'denied') return ended('denied', { denial: auth.denial });
    if (auth.kind === 'requires_approval') {
      const { approvalId: _none, ...payload } = input;
      // The hold outlives this attempt: abandoned on completion, it waits for the decision or its expiry.
      await startAttemptApprovalHold({
        approvalId: auth.approvalId,
        orgId: input.orgId,
        projectId: input.projectId,
        environment: input.environment,
        kind: traits.approvalKind,
        payload,
        expiresAt: auth.expiresAt,
        attemptId: input.attemptId,
      });
      return ended('requires_approval', {
        denial: auth.denial,
        approval: { id: auth.approvalId, expiresAt: auth.expiresAt },
      });
    }
    wallet.holdId = auth.holdId;
    sending = true;
    let sent: Sent;
    try {
      sent = await (traits.sendIsIdempotent ? idempotentSend : onceSend).sendAttempt(attempt);
    } catch (error) {
      sent = { status: 'unknown', message: failureMessage(error) };
    }
    const known = sent.status === 'unknown' ? await settleUnknown(sent.message) : { sent, resolution: null };
    if (known.sent.status === 'succeeded') {
      const settled = await ending.settleAttempt({ attempt, sent: known.sent, resolution: known.resolution });
      appendSteps(audit, settled.steps);
      wallet.debitId = settled.debitId;
      return ended('completed', {
        providerPaymentId: settled.paymentId,
        output: settled.output,
        split: settled.split,
      });
    }
    const released = await ending.releaseAttempt({ attempt, sent: known.sent, resolution: known.resolution });
    appendSteps(audit, released.steps);
    wallet.releaseId = released.releaseId;
    return ended('failed', { failure: released.failure, output: released.output });
  };

  // Whatever breaks the attempt, it ends. Before its send the other side never got it: what the
  // authorization may have held is released and the attempt fails. After it, every step retries until it
  // lands (and an unknown outcome stays held until it is known), so a failure there is never a release.
  let done: AttemptResult;
  try {
    done = await decide();
  } catch (error) {
    if (sending) throw error;
    const message = failureMessage(error);
    done = await CancellationScope.nonCancellable(async () => {
      const release = await ending.releaseAttemptIfHeld({ attempt, message });
      wallet.releaseId = release.releaseId;
      appendSteps(audit, release.steps);
      return ended('failed', { failure: { code: 'attempt_failed', message } });
    });
  }
  await CancellationScope.nonCancellable(() => ending.finishAttempt({ attempt, result: done }));
  result = done;
  await condition(allHandlersFinished);
  return done;
}
