// The one money attempt, whatever its family (wallet execute, paid tool call, consumer spend): authorize
// (the policy gate and a hold, one transaction), send, then settle (debit) or release, and the result stored
// for idempotent replays; every step lands in the audit trail, worded by the family
// (activities/attempts/families).
//
// A send accepted but not yet settled (`processing`) waits for the other side's settlement notice (a
// signal) or a timer, then is looked up. An unknown outcome follows one protocol: the family is asked what
// became of the send (a status lookup by the attempt's idempotency key) until it can say. While it cannot,
// the attempt is `uncertain`: the money stays held, a caller presenting the attempt again has it ask once
// more, and someone who knows (for a family that allows it) may resolve it. `not received` is the only
// answer that releases, and an idempotent send is made again instead when the caller presented the attempt
// again (or an earlier run may have sent it): the key makes sure it is never paid twice.
import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  FAMILY_TRAITS,
  type AttemptAnswer,
  type EngineFamily,
  type FamilyApprovalKind,
  type FamilyInputs,
  type AttemptInput,
  type AttemptResult,
  type AttemptStatus,
  NOT_RECEIVED,
  type FamilyAnswer,
  type FamilyCarry,
  type Known,
  type LookupReason,
  type Looked,
  type Released,
  type Sent,
  type Settled,
  type Decided,
  type SentAndEnded,
} from '../contracts/attempt';
import { resultSoFar } from '../contracts/attempt-endings';
import type { Held } from '../contracts/approval-kinds';
import { appendStep, appendSteps, type AuditStep } from '../contracts/attempt-audit';
import {
  AttemptResolveFailure,
  attemptAnswerUpdate,
  attemptProgressQuery,
  attemptResolveUpdate,
  attemptResultQuery,
  attemptSettlementSignal,
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
const idempotentSendTries = (maximumAttempts: number) =>
  proxyLocalActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    localRetryThreshold: '10 seconds',
    retry: {
      initialInterval: '1 second',
      backoffCoefficient: 2,
      maximumInterval: '30 seconds',
      maximumAttempts,
    },
  });
const idempotentSend = idempotentSendTries(3);
// The same send taken up after the folded step below made its first try: the tries left of the three.
const idempotentSendRetried = idempotentSendTries(2);
// Authorize, an idempotent send and its settlement in one step (ending and deciding in one): a refusal
// of the authorization fails it at once; anything else is retried for as long as it lasts, since a run
// that broke after its send leaves a hold the retry finds (`resumed`) and hands to the lookup.
const wholeStep = (startToCloseTimeout: '1 minute' | '2 minutes') =>
  proxyLocalActivities<Activities>({
    startToCloseTimeout,
    localRetryThreshold: '10 seconds',
    retry: {
      initialInterval: '200 milliseconds',
      backoffCoefficient: 2,
      maximumInterval: '1 minute',
      nonRetryableErrorTypes: ['not_found'],
    },
  });
const decidingAll = wholeStep('1 minute');
// A send that may not run twice, authorized, made and settled in one step: its write-ahead mark makes a
// re-run (a retry, a lost worker, a timeout) send nothing and answer an unknown outcome, so the step is
// retried for as long as it lasts. It fails only before its send: then what it may hold is released.
const decidingOnce = wholeStep('2 minutes');
// Before that step: a send that may not run twice is scheduled once, and a lost worker or activity is an
// unknown outcome.
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

/**
 * The patch under which the step that settles or releases a send's money also stores the attempt's result
 * (one local activity where there were two). Histories recorded before it store the result in a step of its own.
 */
const ENDS_WITH_ITS_MONEY = 'attempt-ends-with-its-money';
/**
 * The patch under which an idempotent send's attempt authorizes, sends and settles (or releases) in one
 * local activity, going on step by step from wherever that stopped. Histories recorded before it run each
 * step as its own local activity.
 */
const FOLDED = 'attempt-folded-happy-path';
/**
 * The patch under which a send made once (a scheduled activity) settles or releases its money and stores
 * the result in the same activity, so the workflow takes up its answer once. Histories recorded before it
 * settle in a local activity of its own.
 */
const SEND_SETTLES = 'attempt-send-settles';

/**
 * The patch under which a send that may not run twice is authorized, made and settled (or released) in one
 * local activity, behind a mark committed before the send (decideOnce). Histories recorded before it
 * authorize in a local activity and send in a scheduled one.
 */
const SENT_ONCE_IN_STEP = 'attempt-sent-once-in-step';

/** How long an uncertain attempt waits for the caller before it asks again by itself. */
const UNCERTAIN_RECHECK = '1 hour';
/** How long a settling send waits for the settlement notice before it is looked up anyway. */
const SETTLEMENT_WAIT = '30 seconds';
/** The pause between lookups of a send that is still settling. */
const SETTLING_POLL = '5 seconds';

const failureMessage = (error: unknown): string =>
  error instanceof ActivityFailure ? (error.cause?.message ?? error.message) : String(error);

/** What an approval stores to replay the attempt: its family's kind, and its input without the approval a replay adds. */
function heldCall<F extends EngineFamily>(
  family: F,
  input: FamilyInputs[F],
): { [G in F]: { kind: FamilyApprovalKind<G>; payload: Held<FamilyInputs[G]> } }[F] {
  return { kind: FAMILY_TRAITS[family].approvalKind, payload: withoutApproval(input) };
}

function withoutApproval<T extends object>(input: T): Held<T> {
  if (!('approvalId' in input)) return { ...input };
  const { approvalId: _none, ...payload } = input;
  return payload;
}

export async function moneyAttempt(attempt: AttemptInput): Promise<AttemptResult> {
  const { input } = attempt;
  const traits = FAMILY_TRAITS[attempt.family];
  let result: AttemptResult | null = null;
  let uncertain: string | null = null;
  let uncertainAnswer: FamilyAnswer | null = null;
  let checks = 0;
  let presented = false;
  let notices = 0;
  // Set once the send's answer is known to be lost, before the family marks it so: a resolution sent as soon
  // as the attempt reads uncertain is taken, never refused for arriving first.
  let awaitingVerdict = false;
  let verdict: ToolChargeResolution | null = null;
  const audit: AuditStep[] = [];

  setHandler(attemptResultQuery, () => result);
  setHandler(attemptProgressQuery, () => ({ audit }));
  setHandler(attemptSettlementSignal, () => {
    notices++;
  });
  setHandler(attemptAnswerUpdate, async (): Promise<AttemptAnswer> => {
    if (result === null && uncertain !== null) {
      // Presented again while nobody could say: ask once more before answering.
      const seen = checks;
      presented = true;
      await condition(() => result !== null || checks > seen || verdict !== null);
    } else {
      await condition(() => result !== null || uncertain !== null);
    }
    if (result !== null) return result;
    const detail = uncertain ?? 'the outcome is not known yet';
    return uncertainAnswer
      ? { status: 'uncertain', detail, answer: uncertainAnswer }
      : { status: 'uncertain', detail };
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

  const wallet: WalletSteps = { holdId: null, debitId: null, releaseId: null, insufficientFunds: false };
  const ended = (status: AttemptStatus, extra: Partial<AttemptResult> = {}): AttemptResult => ({
    ...resultSoFar(attempt, status, audit, wallet),
    ...extra,
  });

  // What a family that words its own answers needs of the attempt so far: the audit its answer carries, and
  // what its authorization handed on. Other families are given nothing of it.
  let carry: FamilyCarry = null;
  const told = () => ({ audit: traits.storesOwnAnswers ? [...audit] : [], carry });
  // Set when the caller presented the uncertain attempt again before this lookup: a send the other side
  // never received is then made again.
  let presentedNow = false;
  const lookUp = async (reason: LookupReason, message: string, round: number): Promise<Looked> => {
    const looked = await lookups.lookupAttempt({
      attempt,
      message,
      round,
      reason,
      presented: presentedNow,
      ...told(),
    });
    appendSteps(audit, looked.steps);
    return looked;
  };

  /** Asks until the outcome is known, or someone who knows resolves it. */
  const settleUnknown = async (
    message: string,
  ): Promise<{ sent: Known; resolution: ToolChargeResolution | null }> => {
    awaitingVerdict = true;
    for (let round = 0; ; round++) {
      const looked = await lookUp('unknown', message, round);
      presentedNow = looked.sent.status === 'not_received' && presentedNow;
      if (looked.sent.status !== 'uncertain') {
        uncertain = null;
        uncertainAnswer = null;
        return { sent: looked.sent, resolution: null };
      }
      uncertain = looked.sent.message;
      uncertainAnswer = 'answer' in looked ? (looked.answer ?? null) : null;
      checks++;
      const seen = notices;
      await condition(() => presented || verdict !== null || notices > seen, UNCERTAIN_RECHECK);
      presentedNow = presented;
      presented = false;
      if (verdict !== null) {
        const resolution: ToolChargeResolution = verdict;
        uncertain = null;
        uncertainAnswer = null;
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
  // Set when the step that settled or released the money stored the result too.
  let stored = false;
  /** The result so far, for the step that settles or releases to store with its own (when it may). */
  const toStore = (status: AttemptStatus): { finish?: AttemptResult } => {
    if (traits.storesOwnAnswers || !patched(ENDS_WITH_ITS_MONEY)) return {};
    stored = true;
    return { finish: ended(status) };
  };
  /** Sends (again, when the other side never received it): an answer that never came is unknown. */
  const send = async (resent: boolean, triedOnce = false): Promise<Sent> => {
    let sent: Sent;
    const sender = !traits.sendIsIdempotent ? onceSend : triedOnce ? idempotentSendRetried : idempotentSend;
    try {
      sent = await sender.sendAttempt(attempt, {
        carry,
        resent,
      });
    } catch (error) {
      sent = { status: 'unknown', message: failureMessage(error) };
    }
    appendSteps(audit, sent.steps ?? []);
    return sent;
  };
  /** The first send, with the money it moved when the same step could move it. */
  const sendFirst = async (holdId: string, triedOnce: boolean): Promise<SentAndEnded> => {
    if (traits.sendIsIdempotent || !patched(SEND_SETTLES)) return { sent: await send(false, triedOnce) };
    let first: SentAndEnded;
    try {
      first = await onceSend.sendAndSettleAttempt({ attempt, holdId, carry, audit: [...audit] });
    } catch (error) {
      first = { sent: { status: 'unknown', message: failureMessage(error) } };
    }
    appendSteps(audit, first.sent.steps ?? []);
    return first;
  };
  /** The attempt's result once its money was settled or released. */
  const settledWith = (settled: Settled): AttemptResult => {
    appendSteps(audit, settled.steps);
    wallet.debitId = settled.debitId;
    return ended('completed', {
      providerPaymentId: settled.paymentId,
      output: settled.output,
      split: settled.split,
      answer: settled.answer,
    });
  };
  const releasedWith = (released: Released): AttemptResult => {
    appendSteps(audit, released.steps);
    wallet.releaseId = released.releaseId;
    return ended('failed', { failure: released.failure, output: released.output, answer: released.answer });
  };
  /** Authorizes, sends and settles: the attempt's result, or a failure that broke it. */
  const decide = async (): Promise<AttemptResult> => {
    // An idempotent send's happy path is one step; the loop below goes on from wherever it stopped.
    const folded = traits.sendIsIdempotent && patched(FOLDED);
    // One that may not run twice the same, behind its mark: it always answers the send when it held.
    const once = !traits.sendIsIdempotent && patched(SENT_ONCE_IN_STEP);
    const decided: Decided = folded
      ? await decidingAll.decideAttempt(attempt)
      : once
        ? await decidingOnce.decideOnceAttempt(attempt)
        : { auth: await deciding.authorizeAttempt(attempt) };
    const { auth } = decided;
    appendSteps(audit, auth.steps);
    if (auth.kind === 'answered') return ended(auth.status, { answer: auth.answer });
    if (auth.kind === 'refused') {
      wallet.insufficientFunds = auth.insufficientFunds;
      return ended('failed', { failure: auth.failure, answer: auth.answer });
    }
    if (auth.kind === 'denied') return ended('denied', { denial: auth.denial });
    if (auth.kind === 'requires_approval') {
      // The hold outlives this attempt: abandoned on completion, it waits for the decision or its expiry.
      await startAttemptApprovalHold({
        approvalId: auth.approvalId,
        orgId: input.orgId,
        projectId: input.projectId,
        environment: input.environment,
        ...heldCall(attempt.family, input),
        expiresAt: auth.expiresAt,
        attemptId: input.attemptId,
      });
      return ended('requires_approval', {
        denial: auth.denial,
        approval: { id: auth.approvalId, expiresAt: auth.expiresAt },
        answer: auth.answer,
      });
    }
    wallet.holdId = auth.holdId;
    carry = auth.carry ?? null;
    sending = true;
    if (decided.sent) appendSteps(audit, decided.sent.steps ?? []);
    // An earlier run held the money and may have sent it: look it up before sending anything.
    const first: Omit<SentAndEnded, 'sent'> & { sent: Sent | Looked['sent'] } = decided.sent
      ? { ...decided, sent: decided.sent }
      : auth.resumed
        ? { sent: (await lookUp('resumed', 'an earlier run may have sent it', 0)).sent }
        : // Held but not sent: the folded step's try at the send failed, and counts as the first.
          await sendFirst(auth.holdId, folded);
    // The step that sent settled or released the money too, and stored the result with it.
    stored = first.settled !== undefined || first.released !== undefined;
    if (first.settled) return settledWith(first.settled);
    if (first.released) return releasedWith(first.released);
    let sent = first.sent;
    let resendable = auth.resumed === true;
    let resolution: ToolChargeResolution | null = null;
    for (;;) {
      if (sent.status === 'succeeded') {
        const settled = await ending.settleAttempt({
          attempt,
          sent,
          resolution,
          holdId: auth.holdId,
          ...told(),
          ...toStore('completed'),
        });
        return settledWith(settled);
      }
      if (sent.status === 'refused') {
        const released = await ending.releaseAttempt({
          attempt,
          sent,
          resolution,
          holdId: auth.holdId,
          ...told(),
          ...toStore('failed'),
        });
        return releasedWith(released);
      }
      if (sent.status === 'processing') {
        // Accepted, settling: the notice wakes it at once, the timer in case none comes.
        const seen = notices;
        await condition(() => notices > seen, SETTLEMENT_WAIT);
        sent = (await lookUp('processing', 'settling', 0)).sent;
        if (sent.status === 'processing') await sleep(SETTLING_POLL);
        continue;
      }
      if (sent.status === 'not_received') {
        // Never received: made again under the same key when someone asked for it, else released.
        if (traits.sendIsIdempotent && (resendable || presentedNow)) {
          const presentedAgain = presentedNow;
          resendable = false;
          presentedNow = false;
          sent = await send(presentedAgain);
          continue;
        }
        sent = {
          status: 'refused',
          code: NOT_RECEIVED,
          message: 'the other side never received it',
          output: null,
        };
        continue;
      }
      resendable = false;
      const known = await settleUnknown(sent.message);
      sent = known.sent;
      resolution = known.resolution;
    }
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
      const release = await ending.releaseAttemptIfHeld({ attempt, message, ...told() });
      wallet.releaseId = release.releaseId;
      appendSteps(audit, release.steps);
      return ended('failed', { failure: { code: 'attempt_failed', message }, answer: release.answer });
    });
  }
  if (!traits.storesOwnAnswers && !stored)
    await CancellationScope.nonCancellable(() => ending.finishAttempt({ attempt, result: done }));
  result = done;
  await condition(allHandlersFinished);
  return done;
}
