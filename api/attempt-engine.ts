// The life every money attempt shares, whichever family it belongs to (wallet execute, paid tool call,
// consumer spend): the bounded wait on its workflow's answer that becomes 409 attempt_in_progress with
// Retry-After, the Temporal errors that mean the answer is to be read from PostgreSQL
// (orchestration/errors.ts, by type), the one place the engine's domain result becomes its HTTP answer,
// and the replies of settled attempts kept serialized in this process.
import type { AttemptAnswer, AttemptInput, AttemptReply } from '../contracts/attempt';
import { attemptReply } from '../domain/attempts/answers';
import { ApiError } from '../domain/errors';
import { answerIsStored } from '../orchestration/errors';
import type { AppDeps } from './deps';
import type { Reply } from './route';
import { settledReplies, type ReplySpace, type SettledReply } from './settled-replies';

/** How long an HTTP call waits for its attempt's answer before telling the caller to present it again. */
export const SYNC_WAIT_MS = 30_000;

export function attemptInProgress(attemptId: string, message: string): ApiError {
  return new ApiError(409, 'attempt_in_progress', message, { attempt_id: attemptId }, { 'Retry-After': '1' });
}

/**
 * The engine's answer as the attempt's HTTP answer (its family's, domain/attempts/answers.ts); an outcome
 * not known yet is attempt_in_progress, worded by the family's door.
 */
export function engineReply(attempt: AttemptInput, answer: AttemptAnswer, uncertain: string): AttemptReply {
  if (answer.status === 'uncertain') throw attemptInProgress(attempt.input.attemptId, uncertain);
  return attemptReply(attempt, answer);
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
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), SYNC_WAIT_MS);
  });
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

/** The stored reply as its claimant's own answer: the same bytes, not marked as a replay. */
export function freshReply(reply: Reply): Reply {
  const { 'Idempotent-Replayed': _replay, ...headers } = reply.headers ?? {};
  return { ...reply, headers };
}

/** A settled attempt's row, as the settled-reply cache keys it. */
export interface SettledRow {
  orgId: string;
  attemptId: string;
  projectId: string;
  fingerprint: string;
}

/** Keeps a settled attempt's serialized reply in this process, so presenting it again costs no round trip. */
export function rememberSettled(
  deps: AppDeps,
  space: ReplySpace,
  row: SettledRow,
  status: number,
  json: Buffer,
): Buffer {
  settledReplies(deps.db, space).remember(row.orgId, row.attemptId, {
    projectId: row.projectId,
    fingerprint: row.fingerprint,
    status,
    json,
  });
  return json;
}

/** The remembered reply of exactly this presentation (organization, project, fingerprint), or undefined. */
export function settledReply(deps: AppDeps, space: ReplySpace, row: SettledRow): SettledReply | undefined {
  return settledReplies(deps.db, space).get(row.orgId, row.attemptId, row.projectId, row.fingerprint);
}
