// The Temporal client errors the gateway tells apart, by type (never by message): which of them mean a
// workflow's answer is to be read from PostgreSQL instead, and which mean a workflow is missing or closed.
import {
  ServiceError,
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  isGrpcServiceError,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';

// gRPC statuses of a call cut short while the workflow moved on (the server answers an update it aborted
// because the workflow closed with UNAVAILABLE, refuses more than its limit of in-flight updates on one
// workflow with RESOURCE_EXHAUSTED, and the client gives up after its retries). Any other service error is
// a real fault and goes up.
const TRANSIENT_GRPC: ReadonlySet<number> = new Set([
  1, // CANCELLED: how the native connection reports a call that ran past its deadline (never an abort here)
  4, // DEADLINE_EXCEEDED
  8, // RESOURCE_EXHAUSTED
  10, // ABORTED
  14, // UNAVAILABLE
]);

/**
 * The errors that mean an update could not bring the workflow's answer while the attempt itself is fine:
 * the workflow closed before or while the update was delivered (a refusal closes it within milliseconds),
 * was already closed (a start under a reuse policy that refuses it), or the call was cut short. A money
 * workflow stores its answer before it closes, so the answer is read from there.
 */
export function answerIsStored(error: unknown): boolean {
  return (
    error instanceof WorkflowNotFoundError ||
    error instanceof WorkflowExecutionAlreadyStartedError ||
    error instanceof WorkflowUpdateFailedError ||
    error instanceof WorkflowUpdateRPCTimeoutOrCancelledError ||
    (error instanceof ServiceError &&
      isGrpcServiceError(error.cause) &&
      TRANSIENT_GRPC.has(error.cause.code)) ||
    // Update-with-Start rethrows the failing operation's status as the bare gRPC error, unwrapped.
    (isGrpcServiceError(error) && TRANSIENT_GRPC.has(error.code))
  );
}

export function isWorkflowMissing(error: unknown): boolean {
  return error instanceof WorkflowNotFoundError;
}

export function isAlreadyStarted(error: unknown): boolean {
  return error instanceof WorkflowExecutionAlreadyStartedError;
}

/** The business failure an update's handler threw (its type is a failure-type constant), or undefined. */
export function updateFailure(error: unknown): ApplicationFailure | undefined {
  return error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure
    ? error.cause
    : undefined;
}

/** The business failure a workflow ended with (its type is a failure-type constant), or undefined. */
export function workflowFailure(error: unknown): ApplicationFailure | undefined {
  return error instanceof WorkflowFailedError && error.cause instanceof ApplicationFailure
    ? error.cause
    : undefined;
}
