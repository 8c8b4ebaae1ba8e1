// Runs a workflow to completion for an HTTP caller with a bounded wait. When no worker finishes it in
// time the caller gets 503 worker_unavailable (retriable), never a 500 or a request that hangs.
import { WorkflowFailedError, type WorkflowStartOptions } from '@temporalio/client';
import { TimeoutFailure } from '@temporalio/common';
import { ApiError } from '../domain/errors';
import type { AppDeps } from './deps';

export async function runWorkflowBounded<T>(
  deps: AppDeps,
  workflowType: string,
  options: Omit<WorkflowStartOptions, 'taskQueue' | 'workflowExecutionTimeout'> & { timeoutMs: number },
  what: string,
): Promise<T> {
  const { timeoutMs, ...start } = options;
  try {
    return (await deps.temporal.client.workflow.execute(workflowType, {
      ...start,
      taskQueue: deps.temporal.taskQueue,
      workflowExecutionTimeout: timeoutMs,
    } as WorkflowStartOptions)) as T;
  } catch (error) {
    if (error instanceof WorkflowFailedError && !(error.cause instanceof TimeoutFailure)) throw error;
    throw new ApiError(503, 'worker_unavailable', `No worker completed ${what} in time; retry later`, {
      reason: error instanceof WorkflowFailedError ? (error.cause?.message ?? error.message) : (error as Error).message,
    });
  }
}
