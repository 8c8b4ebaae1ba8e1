// What an approved call replays, by approval kind. An approval stores a kind and a payload; the approval-hold
// workflow looks the kind up here and runs the replay as a child workflow with a deterministic id, so it runs
// exactly once. Another area holds its calls by adding an entry with its own workflow.
import { CONSUMER_SPEND_KIND, type SpendAnswer, type SpendRequest } from '../contracts/consumer-spend';
import {
  ATTEMPT_WORKFLOW,
  FAMILY_TRAITS,
  type AttemptInput,
  type AttemptResult,
  type EngineFamily,
  type FamilyInputs,
} from '../contracts/attempt';
import { attemptReply } from '../domain/attempts/answers';
import type { SpendInput, SpendOutcome } from '../contracts/spend';
import type { HeldToolCall } from '../domain/tools/gate';
import type { ToolCallReplayResult } from '../activities/tool-calls';
import { TOOL_CHARGE_KIND, type ToolChargeInput, type ToolChargeOutcome } from '../contracts/tool-charge';
import { workflowIds } from '../contracts/workflow-ids';

export interface HeldCall {
  approvalId: string;
  orgId: string;
  projectId: string;
  environment: 'live' | 'test';
  kind: string;
  payload: Record<string, unknown>;
}

type AttemptAttributes = { attemptId?: string; amountMinor?: number };

export interface ReplaySpec {
  workflowType: string;
  workflowId(call: HeldCall): string;
  args(call: HeldCall): unknown[];
  /** The execution_result stored on the approval, and whether the replay succeeded. */
  outcome(result: unknown, call: HeldCall): { ok: boolean; result: Record<string, unknown> };
  searchAttributes(call: HeldCall): AttemptAttributes;
}

/** A replay written against its kind's own payload and result types. */
interface TypedReplay<P, R> {
  workflowType: string;
  workflowId(call: HeldCall, payload: P): string;
  args(call: HeldCall, payload: P): unknown[];
  outcome(result: R, call: HeldCall, payload: P): { ok: boolean; result: Record<string, unknown> };
  searchAttributes(call: HeldCall, payload: P): AttemptAttributes;
}

/**
 * The one place a stored payload takes its kind's type: the approval was created with exactly that shape
 * by the area that held the call, and the replay workflow's result is the one its type returns.
 */
function replay<P, R>(spec: TypedReplay<P, R>): ReplaySpec {
  const payloadOf = (call: HeldCall): P => call.payload as unknown as P;
  return {
    workflowType: spec.workflowType,
    workflowId: (call) => spec.workflowId(call, payloadOf(call)),
    args: (call) => spec.args(call, payloadOf(call)),
    outcome: (result, call) => spec.outcome(result as R, call, payloadOf(call)),
    searchAttributes: (call) => spec.searchAttributes(call, payloadOf(call)),
  };
}

/** An engine family's held attempt: replayed once as the one attempt workflow, answered as its family answers. */
function engineReplay<F extends EngineFamily>(
  family: F,
  workflowId: (call: HeldCall, input: FamilyInputs[F]) => string,
  amountMinor: (input: FamilyInputs[F]) => string,
): ReplaySpec {
  // The union of families is narrowed by `family` itself: this input is that family's.
  const attemptOf = (call: HeldCall, input: FamilyInputs[F]) =>
    ({ family, input: { ...input, approvalId: call.approvalId } }) as AttemptInput;
  return replay<FamilyInputs[F], AttemptResult>({
    workflowType: ATTEMPT_WORKFLOW,
    workflowId,
    args: (call, input) => [attemptOf(call, input)],
    outcome: (result, call, input) => ({
      ok: result.status === 'completed',
      result: attemptReply(attemptOf(call, input), result).body,
    }),
    searchAttributes: (_call, input) => ({
      attemptId: input.attemptId,
      amountMinor: Number(amountMinor(input)),
    }),
  });
}

/** A held consumer spend as its approval replays it: approved by the approval, under its replay workflow. */
const approvedSpend = (call: HeldCall, req: SpendRequest): AttemptInput => ({
  family: 'consumer_spend',
  input: {
    ...req,
    approvedBy: call.approvalId,
    workflowId: workflowIds.consumerSpendReplay(call.orgId, req.attemptId, call.approvalId),
  },
});

export const REPLAYS: Record<string, ReplaySpec> = {
  [FAMILY_TRAITS.wallet_execute.approvalKind]: engineReplay(
    'wallet_execute',
    (call, input) => workflowIds.spendReplay(call.orgId, input.attemptId, call.approvalId),
    (input) => input.amountMinor,
  ),
  [FAMILY_TRAITS.tool_charge.approvalKind]: engineReplay(
    'tool_charge',
    (call, input) => workflowIds.toolChargeReplay(call.orgId, input.attemptId, call.approvalId),
    (input) => input.priceMinor,
  ),
  // A consumer spend held by a rule or its mandate's per-transaction cap: run once more, approved, under
  // its approval's replay workflow id (the attempt's row follows it there).
  [FAMILY_TRAITS.consumer_spend.approvalKind]: replay<SpendRequest, AttemptResult>({
    workflowType: ATTEMPT_WORKFLOW,
    workflowId: (call, req) => workflowIds.consumerSpendReplay(call.orgId, req.attemptId, call.approvalId),
    args: (call, req) => [approvedSpend(call, req)],
    outcome: (result, call, req) => ({
      ok: result.status === 'completed',
      result: attemptReply(approvedSpend(call, req), result).body,
    }),
    searchAttributes: (_call, req) => ({ attemptId: req.attemptId, amountMinor: Number(req.amountMinor) }),
  }),
  // A held tool call (domain/tools/gate.ts TOOL_CALL_KIND): made once in its session after the approval.
  'tool.call': replay<HeldToolCall, ToolCallReplayResult>({
    workflowType: 'toolCallReplay',
    workflowId: (call) => workflowIds.toolCallReplay(call.orgId, call.approvalId),
    args: (call, held) => [
      {
        approvalId: call.approvalId,
        orgId: call.orgId,
        projectId: call.projectId,
        environment: call.environment,
        call: held,
      },
    ],
    outcome: (replayed) => ({
      ok: replayed.ok,
      result: {
        tool_call_id: replayed.tool_call_id,
        error_code: replayed.error_code,
        output: replayed.output,
      },
    }),
    searchAttributes: () => ({}),
  }),
};

/**
 * The replays of approvals whose hold started before the one engine (workflows/approval-hold.ts tells them
 * apart with a patch): their child workflow is the old type, so their histories replay.
 */
export const LEGACY_REPLAYS: Record<string, ReplaySpec> = {
  'wallet.execute': replay<SpendInput, SpendOutcome>({
    workflowType: 'spendAttempt',
    workflowId: (call, input) => workflowIds.spendReplay(call.orgId, input.attemptId, call.approvalId),
    args: (call, input) => [{ ...input, approvalId: call.approvalId }],
    outcome: (outcome) => ({ ok: outcome.status === 'completed', result: outcome.body }),
    searchAttributes: (_call, input) => ({
      attemptId: input.attemptId,
      amountMinor: Number(input.amountMinor),
    }),
  }),
  // A held consumer spend of the type from before the engine.
  [CONSUMER_SPEND_KIND]: replay<SpendRequest, SpendAnswer>({
    workflowType: 'consumerSpendAttempt',
    workflowId: (call, req) => workflowIds.consumerSpendReplay(call.orgId, req.attemptId, call.approvalId),
    args: (call, req) => [
      {
        ...req,
        approvedBy: call.approvalId,
        workflowId: workflowIds.consumerSpendReplay(call.orgId, req.attemptId, call.approvalId),
      },
    ],
    outcome: (answer) => ({ ok: answer.status === 'completed', result: answer.body }),
    searchAttributes: (_call, req) => ({ attemptId: req.attemptId, amountMinor: Number(req.amountMinor) }),
  }),
  // A held paid call of a tenant tool server: charged and made once, at the price it was held at.
  [TOOL_CHARGE_KIND]: replay<ToolChargeInput, ToolChargeOutcome>({
    workflowType: 'paidToolCall',
    workflowId: (call, input) => workflowIds.toolChargeReplay(call.orgId, input.attemptId, call.approvalId),
    args: (call, input) => [{ ...input, approvalId: call.approvalId }],
    outcome: (outcome) => ({ ok: outcome.status === 'completed', result: outcome.body }),
    searchAttributes: (_call, input) => ({
      attemptId: input.attemptId,
      amountMinor: Number(input.priceMinor),
    }),
  }),
};
