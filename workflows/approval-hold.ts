// The approval hold: waits for an operator's decision (an Update) or the expiry timer, whichever comes
// first; on approve it replays the held call once as a child workflow and records the result.
import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  executeChild,
  patched,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ApprovalKind, ReplayOutcome as Outcome } from '../contracts/approval-kinds';
import type { ApprovalView } from '../contracts/approval-view';
import { searchAttributes } from '../contracts/search-attributes';
import { approvalStateQuery, decideUpdate, type DecideInput } from '../contracts/approval-messages';
import { MoneyFailure } from '../contracts/money-failures';
import { CONSUMER_SPEND_KIND } from '../contracts/consumer-spend';
import { LEGACY_REPLAYS, REPLAYS, type HeldCall, type HeldCallOf, type ReplaySpec } from './replays';

const acts = proxyActivities<Activities>({
  startToCloseTimeout: '15 seconds',
  // No attempt cap: the approval's own guarded writes must eventually land; refusals are non-retryable.
  retry: {
    initialInterval: '500 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    nonRetryableErrorTypes: ['not_found'],
  },
});

/**
 * The held call and when its approval expires. It crosses a Temporal payload: the area that held the call
 * started this workflow with its kind's payload, so the payload is trusted to be that kind's here.
 */
export type ApprovalHoldInput = HeldCall & { expiresAt: string };

type State = 'pending' | 'deciding' | 'expiring' | ApprovalView['status'];

export async function approvalHold(input: ApprovalHoldInput): Promise<ApprovalView> {
  let state: State = 'pending';
  let latest: ApprovalView | null = null;
  setHandler(approvalStateQuery, () => state);
  setHandler(
    decideUpdate,
    async (decision) => {
      state = 'deciding';
      latest = await acts.decideApprovalActivity({
        orgId: input.orgId,
        approvalId: input.approvalId,
        ...decision,
      });
      state = latest.status;
      return latest;
    },
    {
      validator: (_decision: DecideInput) => {
        if (state === 'expired' || state === 'expiring')
          throw ApplicationFailure.nonRetryable(
            'The approval expired before a decision',
            MoneyFailure.ApprovalExpired,
          );
        if (state !== 'pending')
          throw ApplicationFailure.nonRetryable(
            `The approval is already ${state}`,
            MoneyFailure.ApprovalNotPending,
            { status: state },
          );
      },
    },
  );

  const remaining = Math.max(0, Date.parse(input.expiresAt) - Date.now());
  const decided = await condition(() => state !== 'pending' && state !== 'deciding', remaining);
  if (!decided) {
    // Handlers move `state` while this function awaits; read it afresh.
    if ((state as State) === 'deciding') {
      await condition(() => state !== 'deciding');
    } else {
      state = 'expiring';
      latest = await acts.expireApprovalActivity({ orgId: input.orgId, approvalId: input.approvalId });
      state = latest.status;
    }
  }

  if ((state as State) === 'approved') {
    const outcome = await replayOnce(input);
    latest = await acts.recordExecutionActivity({
      orgId: input.orgId,
      approvalId: input.approvalId,
      ...outcome,
    });
    state = latest.status;
  }
  await condition(allHandlersFinished);
  return latest ?? (await acts.readApprovalActivity({ orgId: input.orgId, approvalId: input.approvalId }));
}

/** Replays an approved call once, as its kind's workflow, and says how it went. */
function replayOnce<K extends ApprovalKind>(call: HeldCallOf<K>): Promise<Outcome> {
  // Holds started before their kind ran on the one engine replay their call as the old workflow type
  // (consumer spends moved onto it after wallet executes and paid tool calls, under their own patch).
  const legacy = LEGACY_REPLAYS[call.kind];
  const patch = call.kind === CONSUMER_SPEND_KIND ? 'consumer-spend-engine' : 'one-attempt-engine';
  if (legacy && !patched(patch)) return runReplay(legacy, call);
  const spec = REPLAYS[call.kind];
  if (spec) return runReplay(spec, call);
  return Promise.resolve({
    ok: false,
    result: {
      error: { code: 'replay_unknown_kind', message: `Nothing knows how to replay "${call.kind}"` },
    },
  });
}

async function runReplay<K extends ApprovalKind, R>(
  spec: ReplaySpec<K, R>,
  call: HeldCallOf<K>,
): Promise<Outcome> {
  try {
    const extra = spec.searchAttributes(call);
    // The child's result crosses a Temporal payload: it is what the spec's workflow type returns.
    const result = await executeChild<(...args: unknown[]) => Promise<R>>(spec.workflowType, {
      workflowId: spec.workflowId(call),
      args: spec.args(call),
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: searchAttributes({
        orgId: call.orgId,
        projectId: call.projectId,
        environment: call.environment,
        ...(extra.attemptId ? { attemptId: extra.attemptId } : {}),
        ...(extra.amountMinor !== undefined ? { amountMinor: extra.amountMinor } : {}),
      }),
    });
    return spec.outcome(result, call);
  } catch (error) {
    return {
      ok: false,
      result: {
        error: {
          code: 'replay_failed',
          message: (error as Error).message,
          workflow_id: workflowInfo().workflowId,
        },
      },
    };
  }
}
