// Runs a workflow to completion for an HTTP caller with a bounded wait. When no worker finishes it in
// time the caller gets 503 worker_unavailable (retriable), never a 500 or a request that hangs.
import { WorkflowFailedError } from '@temporalio/client';
import { TimeoutFailure, type Workflow, type WorkflowResultType } from '@temporalio/common';
import { ApiError } from '../domain/errors';
import { execute, type Orchestrator, type StartOptions } from './temporal';

export async function runWorkflowBounded<W extends Workflow = Workflow>(
  o: Orchestrator,
  workflowType: string,
  options: Omit<StartOptions<W>, 'workflowExecutionTimeout'> & { timeoutMs: number },
  what: string,
): Promise<WorkflowResultType<W>> {
  const { timeoutMs, ...start } = options;
  try {
    // Omit over the Temporal SDK's conditional start-options type loses it for a generic W; the fields
    // are the same.
    return await execute<W>(o, workflowType, {
      ...start,
      workflowExecutionTimeout: timeoutMs,
    } as unknown as StartOptions<W>);
  } catch (error) {
    if (error instanceof WorkflowFailedError && !(error.cause instanceof TimeoutFailure)) throw error;
    throw new ApiError(503, 'worker_unavailable', `No worker completed ${what} in time; retry later`, {
      reason:
        error instanceof WorkflowFailedError
          ? (error.cause?.message ?? error.message)
          : (error as Error).message,
    });
  }
}
