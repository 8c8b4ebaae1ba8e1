// Frozen: the paid tool call workflow type from before the one engine (workflows/attempt.ts). It stays registered
// so that attempts claimed under it finish and its recorded histories replay; nothing starts it now.
// A paid tool call of a tenant tool server, one workflow per (organization, attempt id): the policy gate and
// a hold on the caller's wallet for the price the call was authorized at (one transaction), the upstream
// tools/call, then the debit with the tenant's share and the platform fee credited (one transaction) when the
// upstream answered success, or the release when it failed or answered too late. When the answer never came
// the hold stays and the call waits for someone who knows (toolChargeResolve): nothing is guessed.
import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  CancellationScope,
  condition,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
} from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { TOOL_CHARGE_KIND } from '../../contracts/tool-charge';
import { startAttemptApprovalHold } from '../attempt-approval-hold';
import type { AuditStep } from '../../contracts/attempt-audit';
import type {
  ToolChargeAnswer,
  ToolChargeInput,
  ToolChargeOutcome,
  ToolChargeResolution,
  UpstreamResult,
} from '../../contracts/tool-charge';
import {
  ToolChargeResolveFailure,
  toolChargeOutcomeUpdate,
  toolChargeResolveSignal,
  toolChargeResolveUpdate,
} from '../../contracts/tool-charge-messages';

// Ledger steps are short, idempotent transactions: local activities, retried as the spend attempt's are.
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
// Ending a call: the steps after the upstream call (uncertain, debit, release, storing the outcome) and the
// release of a call that broke before it. Each is idempotent and must land for the call to end, so an outage
// only delays them; they are never given up on.
const ending = proxyLocalActivities<Activities>({
  startToCloseTimeout: '15 seconds',
  localRetryThreshold: '10 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
});
// A tools/call is not idempotent upstream: it is sent once. A lost worker or activity is an unknown outcome.
const upstream = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 1 },
});

export async function paidToolCall(input: ToolChargeInput): Promise<ToolChargeOutcome> {
  let outcome: ToolChargeOutcome | null = null;
  let uncertain: string | null = null;
  let verdict: ToolChargeResolution | null = null;
  // Set once the upstream's answer is known to be lost, before the charge row says so: a resolution sent as
  // soon as the row reads `uncertain` is taken, never refused for arriving first.
  let awaitingVerdict = false;
  setHandler(toolChargeOutcomeUpdate, async (): Promise<ToolChargeAnswer> => {
    await condition(() => outcome !== null || uncertain !== null);
    return outcome ?? { status: 'upstream_uncertain', detail: uncertain ?? 'the upstream has not answered' };
  });
  // The first resolution wins; a repeat of it waits for (or answers) the settled outcome.
  setHandler(toolChargeResolveSignal, (said) => {
    if (awaitingVerdict && verdict === null) verdict = { outcome: said, resolvedBy: 'unnamed' };
  });
  setHandler(
    toolChargeResolveUpdate,
    async (said): Promise<ToolChargeOutcome> => {
      verdict ??= said;
      await condition(() => outcome !== null);
      return outcome!;
    },
    {
      validator: (said) => {
        const first = verdict as ToolChargeResolution | null;
        if (first !== null && first.outcome !== said.outcome)
          throw ApplicationFailure.nonRetryable(
            `The charge was already resolved as ${first.outcome}`,
            ToolChargeResolveFailure.ResolvedOtherwise,
            { outcome: first.outcome },
          );
        if (first === null && !awaitingVerdict)
          throw ApplicationFailure.nonRetryable(
            'The charge is not waiting for a resolution',
            ToolChargeResolveFailure.NotUncertain,
          );
      },
    },
  );

  const audit: AuditStep[] = [];
  const step = (name: AuditStep['step'], status: AuditStep['status'], detail: string) => {
    audit.push({ timestamp: new Date().toISOString(), step: name, status, detail });
  };
  const wallet = {
    holdId: null as string | null,
    debitId: null as string | null,
    releaseId: null as string | null,
    insufficientFunds: false,
  };
  const body = (status: ToolChargeOutcome['status'], extra: Record<string, unknown> = {}) => ({
    requestId: input.requestId,
    attempt_id: input.attemptId,
    status,
    audit,
    wallet,
    charge: { tool: input.toolName, price_minor: input.priceMinor, currency: input.currency },
    ...extra,
  });

  // Set just before the upstream call is sent: from then on the upstream may have acted on it.
  let sent = false;
  /** Authorizes, calls the upstream and settles: the call's outcome, or a failure that broke it. */
  const decide = async (): Promise<ToolChargeOutcome> => {
    const auth = await ledger.authorizeToolCharge(input);
    let done: ToolChargeOutcome;
    let resolution: ToolChargeResolution | null = null;
    if (auth.kind === 'wallet_not_active') {
      step('hold', 'fail', `wallet_not_active: the wallet is ${auth.status}`);
      done = {
        httpStatus: 200,
        status: 'failed',
        body: body('failed', {
          failure: { code: 'wallet_not_active', message: `The wallet is ${auth.status}` },
        }),
      };
    } else if (auth.kind === 'denied') {
      step('policy', 'fail', `${auth.reason} by ${auth.ruleType} rule ${auth.ruleId}`);
      done = {
        httpStatus: 403,
        status: 'denied',
        body: {
          reason: auth.reason,
          ruleType: auth.ruleType,
          ruleId: auth.ruleId,
          ruleName: auth.ruleName,
          ...body('denied'),
        },
      };
    } else if (auth.kind === 'requires_approval') {
      step('policy', 'fail', `approval_required by rule ${auth.ruleId}`);
      step('approval', 'pass', `held as ${auth.approvalId} until ${auth.expiresAt}`);
      step('hold', 'skip', 'no funds held while waiting for a decision');
      const { approvalId: _none, ...payload } = input;
      // The hold outlives this call: abandoned on completion, it waits for the decision or its expiry.
      await startAttemptApprovalHold({
        approvalId: auth.approvalId,
        orgId: input.orgId,
        projectId: input.projectId,
        environment: input.environment,
        kind: TOOL_CHARGE_KIND,
        payload,
        expiresAt: auth.expiresAt,
        attemptId: input.attemptId,
      });
      done = {
        httpStatus: 403,
        status: 'requires-approval',
        body: {
          reason: auth.reason,
          ruleType: auth.ruleType,
          ruleId: auth.ruleId,
          ruleName: auth.ruleName,
          approval_id: auth.approvalId,
          expires_at: auth.expiresAt,
          ...body('requires-approval', {
            approval: { id: auth.approvalId, status: 'pending', expires_at: auth.expiresAt },
          }),
        },
      };
    } else if (auth.kind === 'insufficient_funds') {
      step('policy', 'pass', 'allowed');
      step('hold', 'fail', `insufficient funds: ${auth.available} available`);
      wallet.insufficientFunds = true;
      done = {
        httpStatus: 200,
        status: 'failed',
        body: body('failed', {
          failure: { code: 'insufficient_funds', message: 'The wallet cannot cover the price' },
        }),
      };
    } else {
      step('policy', 'pass', input.approvalId ? `allowed after approval ${input.approvalId}` : 'allowed');
      wallet.holdId = auth.holdId;
      step('hold', 'pass', `held ${input.priceMinor} ${input.currency} as ${auth.holdId}`);
      let result: UpstreamResult;
      sent = true;
      try {
        result = await upstream.callTenantUpstream(input);
      } catch (error) {
        result = {
          status: 'unknown',
          message: error instanceof ActivityFailure ? (error.cause?.message ?? error.message) : String(error),
        };
      }
      if (result.status === 'unknown') {
        step('dispatch', 'fail', `outcome unknown: ${result.message}; the hold stays until it is known`);
        awaitingVerdict = true;
        await ending.markToolChargeUncertain(input);
        uncertain = result.message;
        await condition(() => verdict !== null);
        uncertain = null;
        resolution = verdict as ToolChargeResolution | null as ToolChargeResolution;
        step('resolve', 'pass', `resolved as ${resolution.outcome} by ${resolution.resolvedBy}`);
        result =
          resolution.outcome === 'succeeded'
            ? { status: 'succeeded', output: { resolved: 'succeeded', resolved_by: resolution.resolvedBy } }
            : {
                status: 'failed',
                code: 'upstream_failed',
                message: `resolved as failed by ${resolution.resolvedBy}`,
              };
      }
      if (result.status === 'succeeded') {
        step('dispatch', 'pass', `upstream ${input.upstreamTool} answered`);
        const split = await ending.settleToolCharge(input, resolution);
        wallet.debitId = split.debitId;
        step(
          'debit',
          'pass',
          `debited entry ${split.debitId}; tenant ${split.tenantShareMinor}, platform fee ${split.feeMinor}`,
        );
        done = {
          httpStatus: 200,
          status: 'completed',
          body: body('completed', {
            output: result.output,
            charge: {
              tool: input.toolName,
              price_minor: input.priceMinor,
              currency: input.currency,
              tenant_share_minor: split.tenantShareMinor,
              fee_minor: split.feeMinor,
            },
          }),
        };
      } else {
        step('dispatch', 'fail', `${result.code}: ${result.message}`);
        const released = await ending.releaseToolCharge(input, resolution);
        wallet.releaseId = released.releaseId;
        step('release', 'pass', `released entry ${released.releaseId}`);
        done = {
          httpStatus: 200,
          status: 'failed',
          body: body('failed', {
            failure: { code: result.code, message: result.message },
            ...(result.output ? { output: result.output } : {}),
          }),
        };
      }
    }
    return done;
  };

  // Whatever breaks the call, it ends. Before the upstream call the upstream never got it: what the
  // authorization may have held is released and the call fails. After it, every step retries until it lands
  // (and an unanswered call stays held until it is resolved), so a failure there is never a release.
  let done: ToolChargeOutcome;
  try {
    done = await decide();
  } catch (error) {
    if (sent) throw error;
    const message =
      error instanceof ActivityFailure ? (error.cause?.message ?? error.message) : String(error);
    done = await CancellationScope.nonCancellable(async () => {
      const release = await ending.releaseToolChargeIfHeld(input);
      wallet.releaseId = release.releaseId;
      step('hold', 'fail', `the call broke before the upstream call: ${message}`);
      if (release.releaseId) step('release', 'pass', `released entry ${release.releaseId}`);
      return {
        httpStatus: 200,
        status: 'failed' as const,
        body: body('failed', { failure: { code: 'attempt_failed', message } }),
      };
    });
  }
  await CancellationScope.nonCancellable(() => ending.finishToolCharge({ input, outcome: done }));
  outcome = done;
  await condition(allHandlersFinished);
  return done;
}
