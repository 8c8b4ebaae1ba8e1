// A tool call that is an attempt of the attempt engine (wallet execute, consumer spend, a catalog money
// tool): the attempt's reply becomes the recorded call's outcome, its policy refusal the flat denial.
import { ApiError } from '../../domain/errors';
import {
  finishToolCall,
  toolCallId,
  type ToolCallOutcome,
  type ToolCallRow,
} from '../../domain/sessions/tool-calls';
import type { Principal } from '../principal';
import type { Reply } from '../route';
import type { AppDeps } from '../deps';
import type { ToolCallAnswer } from './tool-call-answer';

const scopeOf = (p: Principal) => ({ orgId: p.orgId, projectId: p.projectId, environment: p.environment });

/**
 * Ends an opened call whose attempt was refused before it ran: the call ends refused and frees its attempt
 * id for a later try. The row of an earlier presentation is that call's (its outcome is the attempt's), and
 * an attempt still running leaves this one running until it is presented again.
 */
export async function endRefusedCall(
  deps: AppDeps,
  principal: Principal,
  opened: { row: ToolCallRow; created: boolean },
  error: unknown,
): Promise<void> {
  if (!opened.created || !(error instanceof ApiError) || error.code === 'attempt_in_progress') return;
  await finishToolCall(deps.db, scopeOf(principal), opened.row.seq, {
    ok: false,
    output: { error: { code: error.code, message: error.message } },
    errorCode: error.code,
    releaseAttempt: true,
  });
}

/** Runs the attempt of an opened call and records what it answered. */
export async function recordAttemptCall(
  deps: AppDeps,
  principal: Principal,
  opened: { row: ToolCallRow; created: boolean },
  run: () => Promise<Reply>,
): Promise<ToolCallAnswer> {
  const { row } = opened;
  let reply: Reply;
  try {
    reply = await run();
  } catch (error) {
    await endRefusedCall(deps, principal, opened, error);
    throw error;
  }
  const status = reply.status ?? 200;
  const result = (
    Buffer.isBuffer(reply.body) ? JSON.parse(reply.body.toString('utf8')) : reply.body
  ) as Record<string, unknown>;
  const approvalId = typeof result.approval_id === 'string' ? result.approval_id : null;
  const outcome: ToolCallOutcome = {
    ok: status === 200 && result.status === 'completed',
    output: result,
    approvalId,
    errorCode:
      status === 200
        ? result.status === 'completed'
          ? null
          : 'payment_failed'
        : String(
            result.reason ??
              (result.error as { code?: string } | undefined)?.code ??
              result.status ??
              'refused',
          ),
  };
  const call = await finishToolCall(deps.db, scopeOf(principal), row.seq, outcome);
  // A policy rule's refusal is the flat body (`reason`); the engine's other refusals keep their envelope.
  const denial =
    status === 403 && typeof result.reason === 'string'
      ? { ...result, tool_call_id: toolCallId(call) }
      : undefined;
  return { status, call, denial, headers: reply.headers };
}
