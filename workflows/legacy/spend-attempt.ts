// Frozen: the wallet execute workflow type from before the one engine (workflows/attempt.ts). It stays registered
// so that attempts claimed under it finish and its recorded histories replay; nothing starts it now.
// The spend attempt: policy evaluation and hold (one transaction), dispatch to the payment provider, then
// debit or release, and the outcome stored for idempotent replays. Every step lands in the audit trail.
// A dispatch whose answer never came is settled by asking the provider what became of its idempotency key:
// released only when the provider never received it, and held (the caller told to present the attempt
// again, which asks once more) while the provider cannot say.
import {
  ActivityFailure,
  allHandlersFinished,
  CancellationScope,
  condition,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
} from '@temporalio/workflow';
import { startAttemptApprovalHold } from '../attempt-approval-hold';
import type { Activities } from '../../activities';
import type {
  AuditStep,
  Authorization,
  Dispatch,
  SpendAnswer,
  SpendInput,
  SpendOutcome,
  WalletSteps,
} from '../../contracts/spend';
import { spendOutcomeQuery, spendOutcomeUpdate } from '../../contracts/spend-messages';

// Ledger steps are short, idempotent Postgres transactions: local activities run them inside the workflow
// task (results recorded as markers), saving a server round trip per step; a crash simply re-runs them.
const ledger = proxyLocalActivities<Activities>({
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
// Ending an attempt: the steps after a dispatch (debit, release, storing the outcome) and the release of an
// attempt that broke before it. Each is idempotent and must land for the attempt to end, so an outage only
// delays them; they are never given up on.
const ending = proxyLocalActivities<Activities>({
  startToCloseTimeout: '15 seconds',
  localRetryThreshold: '10 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
});
// The provider call carries the attempt's idempotency key, so retrying it can never pay twice. Attempts
// started before the dispatch ran inside the workflow task keep replaying it as a scheduled activity.
const scheduledProvider = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  heartbeatTimeout: '3 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 3,
  },
});

// The same call as a local activity: it runs inside the workflow task, so a spend costs the Temporal server
// one workflow task instead of three tasks and their round trips. A crash re-runs it under the same key.
const localProvider = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  localRetryThreshold: '10 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 3,
  },
});

// The status call never throws for provider trouble (it reports `uncertain`); retries cover worker loss,
// for as long as it lasts: a payment that may have left is never given up on.
const status = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** How long an attempt whose provider cannot say waits for the caller before it asks the provider itself. */
const UNCERTAIN_RECHECK = '1 hour';

export async function spendAttempt(input: SpendInput): Promise<SpendOutcome> {
  let outcome: SpendOutcome | null = null;
  let uncertain: string | null = null;
  let checks = 0;
  let presented = false;
  setHandler(spendOutcomeQuery, () => outcome);
  setHandler(spendOutcomeUpdate, async (): Promise<SpendAnswer> => {
    if (outcome === null && uncertain !== null) {
      // Presented again while the provider could not say: ask it once more before answering.
      const seen = checks;
      presented = true;
      await condition(() => outcome !== null || checks > seen);
    } else {
      await condition(() => outcome !== null || uncertain !== null);
    }
    return outcome ?? { status: 'provider_uncertain', detail: uncertain ?? 'the provider has not said' };
  });

  const audit: AuditStep[] = [];
  const step = (name: AuditStep['step'], status: AuditStep['status'], detail: string) => {
    audit.push({ timestamp: new Date().toISOString(), step: name, status, detail });
  };
  const wallet: WalletSteps = { holdId: null, debitId: null, releaseId: null, insufficientFunds: false };
  const result = (status: SpendOutcome['status'], extra: Record<string, unknown> = {}) => ({
    requestId: input.requestId,
    attempt_id: input.attemptId,
    status,
    audit,
    wallet,
    ...extra,
  });

  /**
   * Asks the provider what became of the attempt's key until it can say. Never releases money that may have
   * left: `not_received` is the only answer that becomes `unreachable` (and then a release).
   */
  const settleUnanswered = async (message: string): Promise<Dispatch> => {
    for (;;) {
      const found = await status.paymentStatus(input);
      if (found.status === 'succeeded' || found.status === 'refused') {
        uncertain = null;
        return found;
      }
      if (found.status === 'not_received') {
        uncertain = null;
        return { status: 'unreachable', message: `the provider never received the payment (${message})` };
      }
      if (uncertain === null)
        step('dispatch', 'fail', `outcome unknown: ${found.message}; the hold stays until the provider says`);
      uncertain = found.message;
      checks++;
      await condition(() => presented, UNCERTAIN_RECHECK);
      presented = false;
    }
  };

  /** Authorizes, dispatches and settles: the attempt's outcome, or a failure that broke it. */
  const decide = async (): Promise<SpendOutcome> => {
    const auth: Authorization = await ledger.authorizeSpend(input);
    let done: SpendOutcome;
    if (auth.kind === 'wallet_not_active') {
      step('policy', 'skip', 'not evaluated');
      step('hold', 'fail', `wallet_not_active: the wallet is ${auth.status}`);
      done = { httpStatus: 200, status: 'failed', body: result('failed'), providerPaymentId: null };
    } else if (auth.kind === 'denied') {
      step('policy', 'fail', `${auth.denial.reason} by ${auth.denial.ruleType} rule ${auth.denial.ruleId}`);
      step('hold', 'skip', 'denied before any hold');
      done = {
        httpStatus: 403,
        status: 'denied',
        body: { ...auth.denial, ...result('denied') },
        providerPaymentId: null,
      };
    } else if (auth.kind === 'requires_approval') {
      step('policy', 'fail', `approval_required by rule ${auth.denial.ruleId}`);
      step('approval', 'pass', `held as ${auth.approvalId} until ${auth.expiresAt}`);
      step('hold', 'skip', 'no funds held while waiting for a decision');
      const { approvalId: _none, ...payload } = input;
      // The hold outlives this attempt: abandoned on completion, it waits for the decision or its expiry.
      await startAttemptApprovalHold({
        approvalId: auth.approvalId,
        orgId: input.orgId,
        projectId: input.projectId,
        environment: input.environment,
        kind: 'wallet.execute',
        payload,
        expiresAt: auth.expiresAt,
        attemptId: input.attemptId,
      });
      const approval = { approval_id: auth.approvalId, expires_at: auth.expiresAt };
      done = {
        httpStatus: 403,
        status: 'requires-approval',
        body: {
          ...auth.denial,
          ...approval,
          ...result('requires-approval', {
            approval: { id: auth.approvalId, status: 'pending', expires_at: auth.expiresAt },
          }),
        },
        providerPaymentId: null,
      };
    } else if (auth.kind === 'insufficient_funds') {
      step('policy', 'pass', input.approvalId ? `allowed after approval ${input.approvalId}` : 'allowed');
      step('hold', 'fail', `insufficient funds: ${auth.available} available`);
      wallet.insufficientFunds = true;
      done = { httpStatus: 200, status: 'failed', body: result('failed'), providerPaymentId: null };
    } else {
      step(
        'policy',
        'pass',
        input.approvalId
          ? `allowed after approval ${input.approvalId}`
          : auth.ruleId
            ? `allowed by rule ${auth.ruleId}`
            : 'allowed',
      );
      wallet.holdId = auth.holdId;
      step('hold', 'pass', `held ${input.amountMinor} ${input.currency} as ${auth.holdId}`);
      let dispatch: Dispatch;
      // From here the provider may have the payment: a failure is never a release.
      dispatched = true;
      try {
        const provider = patched('wallet-dispatch-local') ? localProvider : scheduledProvider;
        dispatch = await provider.dispatchPayment(input);
      } catch (error) {
        const cause =
          error instanceof ActivityFailure ? (error.cause?.message ?? error.message) : String(error);
        dispatch = { status: 'unreachable', message: cause };
      }
      // Attempts started before the status call existed keep releasing on an unanswered dispatch.
      if (dispatch.status === 'unreachable' && patched('wallet-dispatch-status')) {
        step('dispatch', 'fail', `no answer: ${dispatch.message}; asking the provider`);
        dispatch = await settleUnanswered(dispatch.message);
      }
      if (dispatch.status === 'succeeded') {
        step('dispatch', 'pass', `provider payment ${dispatch.paymentId}`);
        const debit = await ending.settleSpend({ input, paymentId: dispatch.paymentId });
        wallet.debitId = debit.debitId;
        step('debit', 'pass', `debited entry ${debit.debitId}`);
        step('release', 'skip', 'hold consumed by the debit');
        done = {
          httpStatus: 200,
          status: 'completed',
          body: result('completed', { payment: { provider_payment_id: dispatch.paymentId } }),
          providerPaymentId: dispatch.paymentId,
        };
      } else {
        step(
          'dispatch',
          'fail',
          dispatch.status === 'refused'
            ? `refused: ${dispatch.code}`
            : `provider unreachable: ${dispatch.message}`,
        );
        step('debit', 'skip', 'nothing to debit');
        const release = await ending.releaseSpend(input);
        wallet.releaseId = release.releaseId;
        step('release', 'pass', `released entry ${release.releaseId}`);
        done = {
          httpStatus: 200,
          status: 'failed',
          body: result('failed', {
            failure:
              dispatch.status === 'refused'
                ? { code: dispatch.code, message: dispatch.message }
                : { code: 'provider_unreachable', message: dispatch.message },
          }),
          providerPaymentId: null,
        };
      }
    }
    return done;
  };

  // Whatever breaks the attempt, it ends. Before its dispatch the provider never got the payment: what the
  // authorization may have held is released and the attempt fails. After it, every step retries until it
  // lands (and an unanswered payment stays held while the provider cannot say), so nothing is left to end.
  let dispatched = false;
  let done: SpendOutcome;
  try {
    done = await decide();
  } catch (error) {
    if (dispatched) throw error;
    const message =
      error instanceof ActivityFailure ? (error.cause?.message ?? error.message) : String(error);
    done = await CancellationScope.nonCancellable(async () => {
      const release = await ending.releaseSpendIfHeld(input);
      wallet.releaseId = release.releaseId;
      step('hold', 'fail', `the attempt broke before its dispatch: ${message}`);
      if (release.releaseId) step('release', 'pass', `released entry ${release.releaseId}`);
      return {
        httpStatus: 200,
        status: 'failed',
        body: result('failed', { failure: { code: 'attempt_failed', message } }),
        providerPaymentId: null,
      };
    });
  }
  await CancellationScope.nonCancellable(() => ending.finishSpend({ input, outcome: done }));
  outcome = done;
  await condition(allHandlersFinished);
  return done;
}
