// Runs a consumer spend for the HTTP routes: the pre-checks (payee, approval claim, quote timestamp,
// session), the attempt's row with its fingerprint (read when the caller named the attempt, claimed
// when it is new), and then one of: a verbatim replay from Postgres, joining the running attempt,
// presenting an uncertain attempt again, or starting it as the one engine's consumer_spend family
// (orchestration/attempts.ts; attempts claimed before the engine are joined as their old workflow type,
// orchestration/legacy-attempts.ts). The life it shares with wallet execute (the bounded wait, the Temporal
// errors answered from PostgreSQL, the settled replies kept serialized in this process) is attempt-engine.ts.
import {
  answerOf,
  claimAttempt,
  oweFreshAnswer,
  readAttempt,
  readStoredAnswer,
  takeFreshAnswer,
  type AttemptRow,
} from '../domain/consumer-payments/attempts';
import {
  checkApproval,
  checkQuote,
  dispatchKeyOf,
  preparePayee,
  presentedMandateId,
  spendFingerprint,
} from '../domain/consumer-payments/prepare';
import { requireSession } from '../domain/consumer-payments/sessions';
import type { AuditStep, SpendAnswer, SpendRequest } from '../contracts/consumer-spend';
import { ApiError } from '../domain/errors';
import { sortableId } from '../domain/ids';
import { EndpointNotConfigured, providerEndpoint } from '../domain/providers/endpoints';
import type { SpendBodyValues } from '../schema/http/consumer-payments';
import { ATTEMPT_WORKFLOW, type AttemptAnswer } from '../contracts/attempt';
import { familyAnswer, replayText } from '../domain/attempts/answers';
import { readPresented, type PresentedRow } from '../domain/attempts/store';
import { attemptProgress, joinAttempt, runAttempt } from '../orchestration/attempts';
import {
  joinLegacyConsumerSpend,
  legacyConsumerSpendProgress,
  presentLegacyConsumerSpend,
} from '../orchestration/legacy-attempts';
import { workflowIds } from '../contracts/workflow-ids';
import type { AppDeps } from './deps';
import type { Principal } from './principal';
import {
  attemptInProgress,
  awaitAttempt,
  rememberSettled,
  settledReply,
  type SettledRow,
} from './attempt-engine';
import { serializeReply } from './settled-replies';

export type SpendRun =
  /** `settled`: the attempt's answer can never change (it is kept in this process). */
  | { kind: 'replay'; status: number; json: Buffer; settled: boolean }
  | {
      kind: 'running';
      request: SpendRequest;
      created: boolean;
      answer: Promise<SpendAnswer>;
      workflowId: string;
      /** The one engine's, or consumerSpendAttempt for an attempt claimed before it. */
      workflowType: string;
    };

/** Mandate ids are `mnd_` and 24 characters; anything longer than an attempt id may be is refused before it is stored. */
const MAX_MANDATE_ID = 128;

const IN_PROGRESS = 'This attempt is still running; present the same attempt_id again for its answer';

/** Rule 1: the stored answer, verbatim except that it now says it is a replay. */
const asReplay = (answer: SpendAnswer): SpendAnswer => ({
  ...answer,
  body: { ...answer.body, idempotent_replay: true },
});

/** A row's stored answer as its replay. */
export const replayOf = (row: AttemptRow): SpendAnswer => asReplay(answerOf(row));

// Answers that never change once stored. requires_approval is reopened by an approval and
// dispatch_uncertain is resolved through the workflow, so neither is ever served from memory.
const SETTLED: ReadonlySet<AttemptRow['status']> = new Set(['completed', 'failed', 'refused']);

/** Whether a replay of this row can never change, so this process may keep it. */
const isSettled = (row: { status: string; caller_attempt: boolean | null; fresh_owed: boolean }): boolean =>
  row.caller_attempt === true && SETTLED.has(row.status as AttemptRow['status']) && !row.fresh_owed;

/** The serialized replay of a stored answer, remembered in this process when the attempt is settled. */
function replayRun(deps: AppDeps, row: AttemptRow): Extract<SpendRun, { kind: 'replay' }> {
  const answer = replayOf(row);
  // The row's body keeps the first answer's key order (attempts.ts), so this is its bytes with the flag turned.
  const json = serializeReply(answer.body);
  const key = {
    orgId: row.org_id,
    attemptId: row.attempt_id,
    projectId: row.project_id,
    fingerprint: row.fingerprint,
  };
  return keptReplay(deps, isSettled(row) ? key : null, answer.httpStatus, json);
}

/**
 * A finished attempt presented again, answered from its kept bytes with the replay flag turned in the text
 * (nothing decoded); null when it needs its full row: still running or uncertain, a fresh answer owed, or
 * an answer kept only as jsonb.
 */
function presentedReplay(
  deps: AppDeps,
  req: SpendRequest,
  row: PresentedRow,
): Extract<SpendRun, { kind: 'replay' }> | null {
  if (row.status === 'processing' || row.status === 'dispatch_uncertain' || row.fresh_owed) return null;
  const text = row.response_text === null ? null : replayText(row.response_text);
  if (text === null) return null;
  const key = {
    orgId: req.orgId,
    attemptId: req.attemptId,
    projectId: req.projectId,
    fingerprint: req.fingerprint,
  };
  return keptReplay(deps, isSettled(row) ? key : null, row.response_status ?? 200, Buffer.from(text, 'utf8'));
}

/** A replay as sent, remembered in this process under `settled` when its attempt is settled. */
function keptReplay(
  deps: AppDeps,
  settled: SettledRow | null,
  status: number,
  json: Buffer,
): Extract<SpendRun, { kind: 'replay' }> {
  if (settled) rememberSettled(deps, 'consumer', settled, status, json);
  return { kind: 'replay', status, json, settled: settled !== null };
}

export async function prepareSpend(
  deps: AppDeps,
  principal: Principal,
  body: SpendBodyValues,
  mandate: unknown,
  requestId: string,
): Promise<SpendRequest> {
  const preAudit: AuditStep[] = [];
  checkApproval(body.approval);
  checkQuote(body.quote);
  const payee = preparePayee(body, preAudit);
  // The rail's provider of the key's own environment, or a refusal before anything is claimed or held.
  const railProvider = payee.rail === 'pix' ? 'pix_psp' : 'ted';
  if (!providerEndpoint(deps.config, railProvider, principal.environment))
    throw new ApiError(
      502,
      'psp_not_dispatched',
      new EndpointNotConfigured(railProvider, principal.environment).message,
    );
  if (body.session_id !== undefined) {
    const session = await requireSession(deps.db, principal, body.session_id);
    preAudit.push({
      timestamp: new Date().toISOString(),
      step: 'session',
      status: 'pass',
      detail: `session ${body.session_id} (${session.status})`,
    });
  }
  const mandateId = presentedMandateId(mandate);
  if (!mandateId)
    throw new ApiError(
      400,
      'invalid_body',
      'mandate must be the signed mandate (an object or its canonical text) with its id',
      { issues: [{ path: '/mandate', message: 'must carry the signed mandate', keyword: 'required' }] },
    );
  // The id becomes a workflow search attribute, which Temporal caps in size; no mandate id comes near this.
  if (mandateId.length > MAX_MANDATE_ID)
    throw new ApiError(400, 'invalid_body', `mandate.id is longer than ${MAX_MANDATE_ID} characters`, {
      issues: [
        {
          path: '/mandate/id',
          message: `must be at most ${MAX_MANDATE_ID} characters`,
          keyword: 'maxLength',
        },
      ],
    });
  const attemptId = body.attempt_id ?? sortableId('att');
  const amountMinor = String(body.amount_minor);
  return {
    orgId: principal.orgId,
    projectId: principal.projectId,
    environment: principal.environment,
    requestId,
    attemptId,
    callerAttempt: body.attempt_id !== undefined,
    workflowId: workflowIds.consumerSpend(principal.orgId, attemptId),
    dispatchKey: dispatchKeyOf(principal.orgId, attemptId),
    fingerprint: spendFingerprint({
      amountMinor,
      payeeCanonical: payee.payeeCanonical,
      mandateId,
      rail: payee.rail,
      quote: body.quote ?? null,
      approval: body.approval ?? null,
    }),
    ...payee,
    amountMinor,
    currency: 'BRL',
    payee: body.payee,
    purpose: body.purpose,
    agentId: body.agent_id,
    signature: body.signature.toLowerCase(),
    mandate,
    mandateId,
    quote: body.quote ?? null,
    approval: body.approval ?? null,
    actor: body.actor ?? null,
    sessionId: body.session_id ?? null,
    approvedBy: null,
    preAudit,
  };
}

export async function startSpend(deps: AppDeps, req: SpendRequest): Promise<SpendRun> {
  if (req.callerAttempt) {
    const settled = settledReply(deps, 'consumer', {
      orgId: req.orgId,
      attemptId: req.attemptId,
      projectId: req.projectId,
      fingerprint: req.fingerprint,
    });
    if (settled) return { kind: 'replay', status: settled.status, json: settled.json, settled: true };
  }
  // An attempt id presented by the caller is usually a retry: its row is read (a plain read by key), and
  // only a missing one is claimed, because the claim's insert path runs even when the id is taken. A
  // settled answer is sent from that one read; only an attempt still to be waited on is read in full.
  const presented = req.callerAttempt
    ? await readPresented(deps.db, 'consumer', req.orgId, req.attemptId)
    : null;
  if (presented) {
    if (presented.project_id !== req.projectId || presented.fingerprint !== req.fingerprint)
      throw idConflict(req);
    const replay = presentedReplay(deps, req, presented);
    if (replay) return replay;
  }
  const existing = presented ? await readAttempt(deps.db, req.orgId, req.attemptId) : null;
  const claim = existing ? { row: existing, created: false } : await claimAttempt(deps.db, req);
  const row = claim.row;
  if (!claim.created) {
    if (!req.callerAttempt || row.project_id !== req.projectId || row.fingerprint !== req.fingerprint)
      throw idConflict(req);
    if (row.status !== 'processing' && row.status !== 'dispatch_uncertain') {
      // The fresh answer its claimant was owed (it was told to come back) goes to this presentation.
      if (row.fresh_owed && (await takeFreshAnswer(deps.db, row.org_id, row.attempt_id)))
        return {
          kind: 'running',
          request: req,
          created: true,
          answer: Promise.resolve(answerOf(row)),
          workflowId: row.workflow_id,
          workflowType: row.workflow_type,
        };
      return replayRun(deps, row);
    }
  }
  let answer: Promise<SpendAnswer>;
  if (row.workflow_type !== ATTEMPT_WORKFLOW) {
    // Claimed before the engine: joined (an uncertain one presented again) as its own type, never started.
    answer =
      row.status === 'dispatch_uncertain'
        ? presentLegacyConsumerSpend(deps.temporal, row.workflow_id)
        : joinLegacyConsumerSpend(deps.temporal, row.workflow_id);
  } else if (!claim.created && row.workflow_id !== req.workflowId) {
    // An approved attempt runs under its approval's replay workflow: join that one, never start this one.
    answer = spendAnswer(deps, req, joinAttempt(deps.temporal, row.workflow_id));
  } else {
    // Started, or joined by a racing duplicate (or presented again while uncertain: the engine asks the
    // provider before it answers). Its claim can lose to one whose workflow is not started yet, so it starts
    // too; the id conflict policy joins whichever start came first (both carry the same payment).
    answer = spendAnswer(deps, req, runAttempt(deps.temporal, { family: 'consumer_spend', input: req }));
  }
  answer.catch(() => undefined); // an abandoned wait must not become an unhandled rejection
  return {
    kind: 'running',
    request: req,
    created: claim.created,
    answer,
    workflowId: row.workflow_id,
    workflowType: row.workflow_type,
  };
}

function idConflict(req: SpendRequest): ApiError {
  return new ApiError(
    409,
    'attempt_id_conflict',
    'This attempt_id was used for a different payment (amount, payee, mandate, rail, service or approval differ)',
    { attempt_id: req.attemptId },
  );
}

/**
 * The engine's answer as the consumer spend's: the one its steps stored (psp_dispatch_uncertain while
 * unknown), read from the attempt's row, since the engine hands on only which answer was stored.
 */
export async function spendAnswer(
  deps: AppDeps,
  req: SpendRequest,
  answer: Promise<AttemptAnswer>,
): Promise<SpendAnswer> {
  const given = familyAnswer(await answer);
  if (!given) throw attemptInProgress(req.attemptId, IN_PROGRESS);
  // An attempt started before answers were handed on by reference carries its answer whole.
  if (!('stored' in given)) return given;
  const stored = await readStoredAnswer(deps.db, req.orgId, req.attemptId);
  if (!stored) throw attemptInProgress(req.attemptId, IN_PROGRESS);
  return stored;
}

/** The audit so far of a running attempt, for the execute stream. */
export async function spendProgress(
  deps: AppDeps,
  run: Extract<SpendRun, { kind: 'running' }>,
): Promise<{ audit: AuditStep[] }> {
  return run.workflowType === ATTEMPT_WORKFLOW
    ? attemptProgress(deps.temporal, run.workflowId)
    : legacyConsumerSpendProgress(deps.temporal, run.workflowId);
}

/** Waits (bounded) for a running attempt; a workflow already closed is answered from Postgres. */
export async function awaitAnswer(
  deps: AppDeps,
  run: Extract<SpendRun, { kind: 'running' }>,
): Promise<SpendAnswer> {
  const { orgId, attemptId } = run.request;
  const answer = await awaitAttempt(run.answer, {
    attemptId,
    inProgressMessage: IN_PROGRESS,
    stored: async () => {
      const stored = await readStoredAnswer(deps.db, orgId, attemptId);
      // The request that started the attempt gets its own answer; anyone who joined it gets a replay.
      return stored && (run.created ? stored : asReplay(stored));
    },
  }).catch(async (error: unknown) => {
    // A claimant told to come back leaves its fresh answer owed to the first to find the answer.
    if (run.created && error instanceof ApiError && error.code === 'attempt_in_progress')
      await oweFreshAnswer(deps.db, orgId, attemptId);
    throw error;
  });
  // Rule 1: only the request that started the attempt gets a fresh answer (or, when it was told to come
  // back, the first to find the answer); one that joined it running gets the same body marked as a replay.
  if (run.created) return answer;
  const fresh = await takeFreshAnswer(deps.db, orgId, attemptId);
  return { ...answer, body: { ...answer.body, idempotent_replay: !fresh } };
}
