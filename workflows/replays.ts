// What an approved call replays, by approval kind. An approval stores a kind and a payload; the approval-hold
// workflow looks the kind up here and runs the replay as a child workflow with a deterministic id, so it runs
// exactly once. Another area holds its calls by adding an entry with its own workflow.
import type { ApprovalKind, ApprovalPayloads, ReplayOutcome as Outcome } from '../contracts/approval-kinds';
import { CONSUMER_SPEND_KIND, type SpendAnswer } from '../contracts/consumer-spend';
import { ATTEMPT_WORKFLOW, FAMILY_TRAITS, type AttemptInput, type AttemptResult } from '../contracts/attempt';
import { attemptReply } from '../domain/attempts/answers';
import type { SpendOutcome } from '../contracts/spend';
import type { ToolCallReplayResult } from '../activities/tool-calls';
import { TOOL_CHARGE_KIND, type ToolChargeOutcome } from '../contracts/tool-charge';
import { workflowIds } from '../contracts/workflow-ids';

/** What each replayed kind's workflow returns. */
interface ReplayResults {
  'wallet.execute': AttemptResult;
  'tool_server.charge': AttemptResult;
  'consumer.spend': AttemptResult;
  'tool.call': ToolCallReplayResult;
}

/** What the workflow types from before the one engine return. */
interface LegacyResults {
  'wallet.execute': SpendOutcome;
  'consumer.spend': SpendAnswer;
  'tool_server.charge': ToolChargeOutcome;
}

interface HeldScope {
  approvalId: string;
  orgId: string;
  projectId: string;
  environment: 'live' | 'test';
}

/** A held call of one kind: its payload is that kind's. */
export type HeldCallOf<K extends ApprovalKind> = HeldScope & { kind: K; payload: ApprovalPayloads[K] };
/** A held call of any kind, told apart by `kind`. */
export type HeldCall = { [K in ApprovalKind]: HeldCallOf<K> }[ApprovalKind];

type AttemptAttributes = { attemptId?: string; amountMinor?: number };

// Function-typed properties (not methods), so each entry's payload and result types are checked exactly.
export interface ReplaySpec<K extends ApprovalKind, R> {
  workflowType: string;
  workflowId: (call: HeldCallOf<K>) => string;
  args: (call: HeldCallOf<K>) => unknown[];
  /** The execution_result stored on the approval, and whether the replay succeeded. */
  outcome: (result: R, call: HeldCallOf<K>) => Outcome;
  searchAttributes: (call: HeldCallOf<K>) => AttemptAttributes;
}

/** A replay table as the approval hold reads it: by any kind, maybe none. */
type ReplayTable<Results> = { [K in ApprovalKind]?: ReplaySpec<K, Results[K & keyof Results]> };

/** A held attempt replayed once as the one attempt workflow, answered as its family answers. */
function engineReplay<K extends ApprovalKind>(
  attemptOf: (call: HeldCallOf<K>) => AttemptInput,
  workflowId: (call: HeldCallOf<K>) => string,
  amountMinor: (call: HeldCallOf<K>) => string,
): ReplaySpec<K, AttemptResult> {
  return {
    workflowType: ATTEMPT_WORKFLOW,
    workflowId,
    args: (call) => [attemptOf(call)],
    outcome: (result, call) => {
      const ok = result.status === 'completed';
      // A family that stores its own answers hands on which it stored: the approval records that one.
      if (result.answer && 'stored' in result.answer)
        return { ok, storedAnswerOf: { attemptId: attemptOf(call).input.attemptId } };
      return { ok, result: attemptReply(attemptOf(call), result).body };
    },
    searchAttributes: (call) => ({
      attemptId: attemptOf(call).input.attemptId,
      amountMinor: Number(amountMinor(call)),
    }),
  };
}

/** A held consumer spend as its approval replays it: approved by the approval, under its replay workflow. */
const approvedSpend = (call: HeldCallOf<'consumer.spend'>): AttemptInput => ({
  family: 'consumer_spend',
  input: {
    ...call.payload,
    approvedBy: call.approvalId,
    workflowId: workflowIds.consumerSpendReplay(call.orgId, call.payload.attemptId, call.approvalId),
  },
});

const replays = {
  [FAMILY_TRAITS.wallet_execute.approvalKind]: engineReplay<'wallet.execute'>(
    (call) => ({ family: 'wallet_execute', input: { ...call.payload, approvalId: call.approvalId } }),
    (call) => workflowIds.spendReplay(call.orgId, call.payload.attemptId, call.approvalId),
    (call) => call.payload.amountMinor,
  ),
  [FAMILY_TRAITS.tool_charge.approvalKind]: engineReplay<'tool_server.charge'>(
    (call) => ({ family: 'tool_charge', input: { ...call.payload, approvalId: call.approvalId } }),
    (call) => workflowIds.toolChargeReplay(call.orgId, call.payload.attemptId, call.approvalId),
    (call) => call.payload.priceMinor,
  ),
  // A consumer spend held by a rule or its mandate's per-transaction cap: run once more, approved, under
  // its approval's replay workflow id (the attempt's row follows it there).
  [FAMILY_TRAITS.consumer_spend.approvalKind]: engineReplay<'consumer.spend'>(
    approvedSpend,
    (call) => workflowIds.consumerSpendReplay(call.orgId, call.payload.attemptId, call.approvalId),
    (call) => call.payload.amountMinor,
  ),
  // A held tool call (domain/tools/gate.ts TOOL_CALL_KIND): made once in its session after the approval.
  'tool.call': {
    workflowType: 'toolCallReplay',
    workflowId: (call) => workflowIds.toolCallReplay(call.orgId, call.approvalId),
    args: (call) => [
      {
        approvalId: call.approvalId,
        orgId: call.orgId,
        projectId: call.projectId,
        environment: call.environment,
        call: call.payload,
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
  },
} satisfies { [K in keyof ReplayResults]: ReplaySpec<K, ReplayResults[K]> };
// A card authorization is decided inside the issuer's deadline and never held: nothing replays its kind.
export const REPLAYS: ReplayTable<ReplayResults> = replays;

/**
 * The replays of approvals whose hold started before the one engine (workflows/approval-hold.ts tells them
 * apart with a patch): their child workflow is the old type, so their histories replay.
 */
const legacyReplays = {
  'wallet.execute': {
    workflowType: 'spendAttempt',
    workflowId: (call) => workflowIds.spendReplay(call.orgId, call.payload.attemptId, call.approvalId),
    args: (call) => [{ ...call.payload, approvalId: call.approvalId }],
    outcome: (outcome) => ({ ok: outcome.status === 'completed', result: outcome.body }),
    searchAttributes: (call) => ({
      attemptId: call.payload.attemptId,
      amountMinor: Number(call.payload.amountMinor),
    }),
  },
  // A held consumer spend of the type from before the engine.
  [CONSUMER_SPEND_KIND]: {
    workflowType: 'consumerSpendAttempt',
    workflowId: (call) =>
      workflowIds.consumerSpendReplay(call.orgId, call.payload.attemptId, call.approvalId),
    args: (call) => [
      {
        ...call.payload,
        approvedBy: call.approvalId,
        workflowId: workflowIds.consumerSpendReplay(call.orgId, call.payload.attemptId, call.approvalId),
      },
    ],
    outcome: (answer) => ({ ok: answer.status === 'completed', result: answer.body }),
    searchAttributes: (call) => ({
      attemptId: call.payload.attemptId,
      amountMinor: Number(call.payload.amountMinor),
    }),
  },
  // A held paid call of a tenant tool server: charged and made once, at the price it was held at.
  [TOOL_CHARGE_KIND]: {
    workflowType: 'paidToolCall',
    workflowId: (call) => workflowIds.toolChargeReplay(call.orgId, call.payload.attemptId, call.approvalId),
    args: (call) => [{ ...call.payload, approvalId: call.approvalId }],
    outcome: (outcome) => ({ ok: outcome.status === 'completed', result: outcome.body }),
    searchAttributes: (call) => ({
      attemptId: call.payload.attemptId,
      amountMinor: Number(call.payload.priceMinor),
    }),
  },
} satisfies { [K in keyof LegacyResults]: ReplaySpec<K, LegacyResults[K]> };
export const LEGACY_REPLAYS: ReplayTable<LegacyResults> = legacyReplays;
