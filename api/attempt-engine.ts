// The life every money attempt shares, whichever family it belongs to (wallet execute, consumer spend):
// start-or-join its workflow and wait on its answer update, a bounded wait that becomes 409
// attempt_in_progress with Retry-After, the Temporal errors that mean the answer is to be read from
// PostgreSQL (matched by type, never by message), and the replies of settled attempts kept serialized in
// this process. A family plugs in its workflow, its update, its stored row and its rules.
import {
  ServiceError, WithStartWorkflowOperation, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError, isGrpcServiceError, type WorkflowStartOptions,
} from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import { ApiError } from '../domain/errors';
import type { AppDeps } from './deps';
import type { Reply } from './route';
import { settledReplies, type AttemptFamily, type SettledReply } from './settled-replies';

/** How long an HTTP call waits for its attempt's answer before telling the caller to present it again. */
export const SYNC_WAIT_MS = 30_000;

export function attemptInProgress(attemptId: string, message: string): ApiError {
  return new ApiError(409, 'attempt_in_progress', message, { attempt_id: attemptId }, { 'Retry-After': '1' });
}

/**
 * The Temporal errors that mean the update could not bring the workflow's answer while the attempt itself
 * is fine: the workflow closed before or while the update was delivered (a refusal closes it within
 * milliseconds), was already closed (a start under a reuse policy that refuses it), or the call was cut
 * short. Each family's workflow stores its answer before it closes, so the answer is read from there.
 */
export function answerIsStored(error: unknown): boolean {
  return error instanceof WorkflowNotFoundError
    || error instanceof WorkflowExecutionAlreadyStartedError
    || error instanceof WorkflowUpdateFailedError
    || error instanceof WorkflowUpdateRPCTimeoutOrCancelledError
    || (error instanceof ServiceError && isGrpcServiceError(error.cause) && TRANSIENT_GRPC.has(error.cause.code));
}

// gRPC statuses of a call cut short while the workflow moved on (the server answers an update it aborted
// because the workflow closed with UNAVAILABLE, and the client gives up after its retries). Any other
// service error is a real fault and goes up.
const TRANSIENT_GRPC: ReadonlySet<number> = new Set([
  4, // DEADLINE_EXCEEDED
  8, // RESOURCE_EXHAUSTED
  10, // ABORTED
  14, // UNAVAILABLE
]);

/** Starts the workflow or joins the running one with the same id, then waits on its answer update. */
export function startThenUpdate<A>(deps: AppDeps, workflowType: string, options: WorkflowStartOptions, update: UpdateDefinition<A, []>): Promise<A> {
  return deps.temporal.client.workflow.start(workflowType, options).then((started) => started.executeUpdate(update));
}

/** The same as one Update-with-Start call: a round trip saved where the server implements it. */
export function updateWithStart<A>(
  deps: AppDeps, workflowType: string, options: WorkflowStartOptions & { workflowIdConflictPolicy: NonNullable<WorkflowStartOptions['workflowIdConflictPolicy']> }, update: UpdateDefinition<A, []>,
): Promise<A> {
  const start = new WithStartWorkflowOperation(workflowType, options);
  return deps.temporal.client.workflow.executeUpdateWithStart(update, { startWorkflowOperation: start });
}

export interface AwaitOptions<A> {
  attemptId: string;
  /** The family's wording of attempt_in_progress. */
  inProgressMessage: string;
  /** The attempt's stored answer, or null while it has none (then the caller is told to come back). */
  stored: () => Promise<A | null>;
}

/**
 * Waits (bounded) for a running attempt's answer. A wait that runs out is attempt_in_progress; a workflow
 * that closed first is answered from PostgreSQL; any other failure is a real one and goes up.
 */
export async function awaitAttempt<A>(answer: Promise<A>, options: AwaitOptions<A>): Promise<A> {
  answer.catch(() => undefined); // an abandoned wait must not become an unhandled rejection
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => { timer = setTimeout(() => resolve(null), SYNC_WAIT_MS); });
  try {
    const settled = await Promise.race([answer, timeout]);
    if (settled === null) throw attemptInProgress(options.attemptId, options.inProgressMessage);
    return settled;
  } catch (error) {
    if (error instanceof ApiError || !answerIsStored(error)) throw error;
    const stored = await options.stored();
    if (stored === null) throw attemptInProgress(options.attemptId, options.inProgressMessage);
    return stored;
  } finally {
    clearTimeout(timer);
  }
}

/** A stored reply sent again: serialized once, marked as a replay in the header. */
export function replayedReply(status: number, json: Buffer): Reply {
  return { status, body: json, type: 'application/json', headers: { 'Idempotent-Replayed': 'true' } };
}

/** A settled attempt's row, as the settled-reply cache keys it. */
export interface SettledRow {
  orgId: string;
  attemptId: string;
  projectId: string;
  fingerprint: string;
}

/** Keeps a settled attempt's serialized reply in this process, so presenting it again costs no round trip. */
export function rememberSettled(deps: AppDeps, family: AttemptFamily, row: SettledRow, status: number, json: Buffer): Buffer {
  settledReplies(deps.db, family).remember(row.orgId, row.attemptId, { projectId: row.projectId, fingerprint: row.fingerprint, status, json });
  return json;
}

/** The remembered reply of exactly this presentation (organization, project, fingerprint), or undefined. */
export function settledReply(deps: AppDeps, family: AttemptFamily, row: SettledRow): SettledReply | undefined {
  return settledReplies(deps.db, family).get(row.orgId, row.attemptId, row.projectId, row.fingerprint);
}
