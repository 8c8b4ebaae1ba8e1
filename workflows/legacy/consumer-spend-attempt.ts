// Frozen: the consumer spend workflow type from before the one engine (workflows/attempt.ts, family
// consumer_spend). It stays registered so that attempts claimed under it finish, approvals held before
// the change replay through it, and its recorded histories replay; nothing new starts it.
// One consumer spend attempt, from authorization to receipt: DICT lookup (Pix), authorize (mandate,
// caps, allowlists, policy, hold), dispatch under the attempt's key, then settle (debit, receipt) or
// release. An unknown provider outcome answers psp_dispatch_uncertain and waits for the caller to
// present the attempt again (or a settlement notice, or a durable timer); then it asks the provider,
// and only resends when the provider says nothing arrived: it never pays twice.
import {
  ActivityFailure,
  allHandlersFinished,
  CancellationScope,
  condition,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
} from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { DispatchResult } from '../../activities/consumer-payments';
import { approvalAnswer, refusalAnswer, uncertainAnswer } from '../../domain/consumer-payments/answers';
import { appendStep, appendSteps } from '../../contracts/attempt-audit';
import {
  CONSUMER_SPEND_KIND,
  type AuditStep,
  type SpendAnswer,
  type SpendRequest,
} from '../../contracts/consumer-spend';
import {
  consumerSpendAnswerUpdate,
  consumerSpendProgressQuery,
  consumerSpendRetryUpdate,
  consumerSpendSettlementSignal,
} from '../../contracts/consumer-spend-messages';
import { startAttemptApprovalHold } from '../attempt-approval-hold';

// Database steps retry until they succeed: each is one idempotent transaction.
const dbRetry = {
  initialInterval: '200 milliseconds',
  backoffCoefficient: 2,
  maximumInterval: '10 seconds',
} as const;
const scheduledDb = proxyActivities<Activities>({ startToCloseTimeout: '20 seconds', retry: dbRetry });
// The same steps as local activities, run inside the workflow task with their results recorded as markers:
// a server round trip saved per step (each of those costs more here than the step itself), and a crash
// re-runs them, which their idempotency allows. The DICT lookup is a short read and runs the same way.
const localDb = proxyLocalActivities<Activities>({
  startToCloseTimeout: '20 seconds',
  localRetryThreshold: '10 seconds',
  retry: dbRetry,
});
// The steps before the dispatch, bounded as the wallet execute's authorization is: nothing has been sent, so an
// attempt whose authorization keeps failing ends (released and failed) instead of waiting for ever.
const decidingRetry = { ...dbRetry, maximumAttempts: 20 } as const;
const scheduledDeciding = proxyActivities<Activities>({
  startToCloseTimeout: '20 seconds',
  retry: decidingRetry,
});
const localDeciding = proxyLocalActivities<Activities>({
  startToCloseTimeout: '20 seconds',
  localRetryThreshold: '10 seconds',
  retry: decidingRetry,
});
// Dispatch itself never throws for provider trouble (it reports `uncertain`); retries cover worker loss, and
// every send carries the attempt's key, so a re-run never pays twice.
const providerOptions = {
  startToCloseTimeout: '60 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 5,
  },
} as const;
const scheduledProvider = proxyActivities<Activities>(providerOptions);
// Run inside the workflow task, the dispatch saves the server two tasks and their round trips per spend.
const localProvider = proxyLocalActivities<Activities>({
  ...providerOptions,
  localRetryThreshold: '10 seconds',
});

/** How long an uncertain attempt waits for the caller before the workflow asks the provider itself. */
const UNCERTAIN_RECHECK = '1 hour';
/** How long a processing Pix payment waits for the settlement notice before polling the PSP. */
const SETTLEMENT_WAIT = '30 seconds';

export async function consumerSpendAttempt(req: SpendRequest): Promise<SpendAnswer> {
  // Attempts started before the database steps became local activities keep replaying as scheduled ones.
  const local = patched('consumer-spend-local-steps');
  const db = local ? localDb : scheduledDb;
  const deciding = local ? localDeciding : scheduledDeciding;
  // Attempts started before the dispatch ran inside the workflow task keep replaying it as scheduled.
  const provider = patched('consumer-dispatch-local') ? localProvider : scheduledProvider;
  const audit: AuditStep[] = [...req.preAudit];
  let answer: SpendAnswer | null = null;
  let generation = 0;
  let retryRequested = false;
  let notices = 0;
  const step = (name: string, status: AuditStep['status'], detail: string) =>
    appendStep(audit, name, status, detail);
  const publish = (next: SpendAnswer) => {
    answer = next;
    generation++;
  };

  setHandler(consumerSpendProgressQuery, () => ({ audit, answer, generation }));
  setHandler(consumerSpendAnswerUpdate, async () => {
    await condition(() => answer !== null);
    return answer!;
  });
  setHandler(consumerSpendRetryUpdate, async () => {
    if (answer?.status !== 'dispatch_uncertain')
      return answer ?? (await condition(() => answer !== null), answer!);
    const seen = generation;
    retryRequested = true;
    await condition(() => generation > seen);
    return answer!;
  });
  setHandler(consumerSpendSettlementSignal, () => {
    notices++;
  });

  const finish = async (final: SpendAnswer): Promise<SpendAnswer> => {
    publish(final);
    await condition(allHandlersFinished);
    return final;
  };

  /**
   * A provider call after the dispatch that keeps failing (worker loss past its retries) leaves the outcome
   * unknown: it becomes `uncertain`, answered and asked again, never given up on.
   */
  const ask = async (call: () => Promise<DispatchResult>): Promise<DispatchResult> => {
    try {
      return await call();
    } catch (error) {
      if (isCancellation(error)) throw error;
      return { kind: 'uncertain', detail: failureMessage(error) };
    }
  };

  // Set once the attempt holds money for a dispatch: from then on the provider may have the payment.
  let dispatched = false;
  /** Looks the payee up, authorizes, dispatches and settles: the attempt's answer, or a failure that broke it. */
  const decide = async (): Promise<SpendAnswer> => {
    if (req.rail === 'pix') {
      const owner = await deciding.lookupPixPayee(req);
      if (!owner.found) {
        step('dict', 'fail', 'the Pix key is not registered in DICT');
        const refused = refusalAnswer(
          req,
          { status: 422, code: 'pix_key_not_found', message: 'The Pix key is not registered in DICT' },
          audit,
        );
        await deciding.recordConsumerSpendAnswer({
          req,
          answer: refused,
          consumerId: null,
          approvalId: null,
        });
        return refused;
      }
      step('dict', 'pass', `key owned by ${owner.ownerName} at ISPB ${owner.ispb}`);
    }

    const auth = await deciding.authorizeConsumerSpend(req);
    // A run of an attempt already answered (another run under this id closed first) only repeats the answer.
    if (auth.kind === 'answered') return auth.answer;
    appendSteps(audit, auth.audit);
    if (auth.kind === 'refused') {
      const refused = refusalAnswer(req, auth.refusal, audit);
      await deciding.recordConsumerSpendAnswer({
        req,
        answer: refused,
        consumerId: auth.terms?.consumerId ?? null,
        approvalId: null,
      });
      return refused;
    }
    if (auth.kind === 'requires_approval') {
      const held = approvalAnswer(req, auth, audit);
      await deciding.recordConsumerSpendAnswer({
        req,
        answer: held,
        consumerId: auth.terms.consumerId,
        approvalId: auth.approvalId,
      });
      // The hold outlives this attempt: abandoned on completion, it waits for the decision or its expiry,
      // and on approval replays the attempt once (workflows/replays.ts, 'consumer.spend').
      await startAttemptApprovalHold({
        approvalId: auth.approvalId,
        orgId: req.orgId,
        projectId: req.projectId,
        environment: req.environment,
        kind: CONSUMER_SPEND_KIND,
        payload: { ...req },
        expiresAt: auth.expiresAt,
        attemptId: req.attemptId,
      });
      return held;
    }

    const { terms, holdId } = auth;
    // From here the provider may have the payment (an earlier run of a held attempt may have sent it): a
    // failure is never a release, and what the provider says goes through the dispatch_uncertain protocol.
    dispatched = true;
    // A consent pull names the consumer's funding source the PSP takes the money from.
    const dispatch = {
      req,
      sourceAccount: auth.sourceAccount,
      fundingSourceId: terms.funding === 'consent_pull' ? (terms.fundingSourceId ?? null) : null,
    };
    let result: DispatchResult = auth.retried
      ? await ask(() => provider.resolveConsumerDispatch(req))
      : { kind: 'not_received' };
    if (result.kind === 'not_received') {
      step('dispatch', 'pass', `sent to the ${req.rail} provider under the attempt's key`);
      result = await ask(() => provider.dispatchConsumerSpend(dispatch));
    }
    for (;;) {
      if (result.kind === 'settled') {
        step('dispatch', 'pass', `settled as ${result.settlement.providerPaymentId}`);
        return db.settleConsumerSpend({ req, terms, holdId, settlement: result.settlement, audit });
      }
      if (result.kind === 'refused') {
        step('dispatch', 'fail', `${result.refusal.code}: ${result.refusal.message}`);
        return db.releaseConsumerSpend({ req, terms, refusal: result.refusal, audit });
      }
      if (result.kind === 'processing') {
        step('dispatch', 'pass', `accepted as ${result.providerPaymentId}; waiting for settlement`);
        const seen = notices;
        await condition(() => notices > seen, SETTLEMENT_WAIT);
        result = await ask(() => provider.resolveConsumerDispatch(req));
        if (result.kind === 'processing') await sleep('5 seconds');
        continue;
      }
      if (result.kind === 'not_received') {
        // The provider never got it; resending under the same key is safe. Only the caller's retry or
        // the durable recheck gets here, so a silent attempt does not hold money forever.
        if (!retryRequested) {
          step('dispatch', 'fail', 'the provider never received the payment; the hold is released');
          return db.releaseConsumerSpend({
            req,
            terms,
            refusal: {
              status: 502,
              code: 'psp_not_dispatched',
              message: 'The provider never received the payment; nothing moved',
            },
            audit,
          });
        }
        retryRequested = false;
        step('dispatch', 'pass', 'resent under the same key: the provider never received it');
        result = await ask(() => provider.dispatchConsumerSpend(dispatch));
        continue;
      }
      // Unknown outcome: answer 502 and wait for the caller to present the attempt again.
      step('dispatch', 'fail', `outcome unknown: ${result.detail}`);
      const uncertain = uncertainAnswer(req, audit, result.detail);
      await db.recordConsumerSpendAnswer({
        req,
        answer: uncertain,
        consumerId: terms.consumerId,
        approvalId: null,
      });
      publish(uncertain);
      const seen = notices;
      await condition(() => retryRequested || notices > seen, UNCERTAIN_RECHECK);
      step(
        'resolve',
        'pass',
        retryRequested ? 'attempt presented again: asking the provider' : 'asking the provider',
      );
      result = await ask(() => provider.resolveConsumerDispatch(req));
      if (result.kind !== 'not_received') retryRequested = false;
    }
  };

  // Whatever breaks the attempt, it ends. Before its dispatch the provider never got the payment: what the
  // authorization may have held is released and the attempt fails. After it, every step retries until it
  // lands and the provider's silence is the dispatch_uncertain protocol's, so a failure there is never a release.
  try {
    return await finish(await decide());
  } catch (error) {
    if (dispatched || answer !== null) throw error;
    const reason = failureMessage(error);
    step('authorize', 'fail', `the attempt broke before its dispatch: ${reason}`);
    const failed = await CancellationScope.nonCancellable(() =>
      db.failConsumerSpendBeforeDispatch({ req, reason, audit }),
    );
    return finish(failed);
  }
}

const failureMessage = (error: unknown): string =>
  error instanceof ActivityFailure ? (error.cause?.message ?? error.message) : String(error);
