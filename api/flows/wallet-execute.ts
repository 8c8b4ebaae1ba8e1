// Wallet execute, for the route and for paying tool calls alike: answers GatewayPaymentResult synchronously
// from the engine's attempt workflow (Update-with-Start, orchestration/attempts.ts), or from Postgres when
// the attempt already finished. The attempt's life shared with the other families (bounded wait, Temporal
// errors answered from Postgres, the result's answer, settled replies kept serialized in this process) is
// attempt-engine.ts.
import { ATTEMPT_WORKFLOW, type AttemptInput } from '../../contracts/attempt';
import { ApiError } from '../../domain/errors';
import {
  claimAttempt,
  fingerprint,
  oweFreshAnswer,
  readAttempt,
  releaseClaim,
  replayBytes,
  takeFreshAnswer,
  type AttemptRow,
} from '../../domain/attempts/store';
import type { SpendInput } from '../../contracts/spend';
import { isCurrency, toMinorUnits } from '../../contracts/currencies';
import { getWallet, type WalletRow } from '../../domain/wallets/wallets';
import { sortableId } from '../../domain/ids';
import type { WalletExecuteBody } from '../../schema/http/execute';
import { attemptWorkflowId, runAttempt } from '../../orchestration/attempts';
import { joinLegacyWalletSpend } from '../../orchestration/legacy-attempts';
import { EndpointNotConfigured, providerEndpoint } from '../../domain/providers/endpoints';
import type { AppDeps } from '../deps';
import type { Principal } from '../principal';
import type { Reply } from '../route';
import {
  attemptInProgress,
  awaitAttempt,
  engineReply,
  freshReply,
  rememberSettled,
  replayedReply,
  settledReply,
} from '../attempt-engine';

/** A promise that never settles: a race's entrant that withdrew. */
const pending = (): Promise<never> => new Promise<never>(() => undefined);

/** The largest amount a ledger entry holds: PostgreSQL's bigint. */
const MAX_LEDGER_MINOR = 9_223_372_036_854_775_807n;

const IN_PROGRESS = 'This attempt is still running; retry with the same attempt_id to get its result';
const UNCERTAIN =
  'The payment provider has not said whether this payment was made; the money stays held. Present the same attempt_id again';

/**
 * A finished attempt's stored reply: the bytes first sent. Only `processing` rows are ever updated, so every
 * other one is remembered.
 */
function stored(deps: AppDeps, row: AttemptRow): Reply {
  const status = row.response_status ?? 200;
  // A reply still owed fresh to someone is not kept: a replay from memory would skip the taking.
  if (row.fresh_owed) return replayedReply(status, replayBytes(row));
  const json = rememberSettled(
    deps,
    'wallet',
    {
      orgId: row.org_id,
      attemptId: row.attempt_id,
      projectId: row.project_id,
      fingerprint: row.fingerprint,
    },
    status,
    replayBytes(row),
  );
  return replayedReply(status, json);
}

/**
 * The stored outcome of an attempt heard ending, for the request waiting on it: the claimant's own answer
 * (kept out of this process's memory, as the update's answer is), or this presentation's; null when the
 * row is not finished after all.
 */
async function heardAnswer(
  deps: AppDeps,
  orgId: string,
  attemptId: string,
  claimant: boolean,
): Promise<Reply | null> {
  const row = await readAttempt(deps.db, orgId, attemptId);
  if (!row || row.status === 'processing') return null;
  if (!claimant) return answerOf(deps, row);
  return freshReply(replayedReply(row.response_status ?? 200, replayBytes(row)));
}

/** A finished attempt's reply to this presentation: fresh if it takes the fresh answer its claimant owed. */
async function answerOf(deps: AppDeps, row: AttemptRow): Promise<Reply> {
  const reply = stored(deps, row);
  return row.fresh_owed && (await takeFreshAnswer(deps.db, 'wallet', row.org_id, row.attempt_id))
    ? freshReply(reply)
    : reply;
}

/**
 * The stored reply of a finished attempt of exactly this request (project, wallet, body), from this
 * process's memory or one plain read by key; null when there is none, so the claim judges the request.
 */
export async function finishedReply(
  deps: AppDeps,
  principal: Principal,
  walletId: string,
  attemptId: string,
  body: unknown,
): Promise<Reply | null> {
  // The fingerprint binds the project and the wallet as well as the body: a hit is this very
  // request, already answered (and its wallet, never deleted but with its project, was found then).
  const hash = fingerprint(principal.projectId, walletId, body);
  const hit = settledReply(deps, 'wallet', {
    orgId: principal.orgId,
    attemptId,
    projectId: principal.projectId,
    fingerprint: hash,
  });
  if (hit) return replayedReply(hit.status, hit.json);
  const finished = await readAttempt(deps.db, principal.orgId, attemptId);
  if (
    finished &&
    finished.status !== 'processing' &&
    finished.project_id === principal.projectId &&
    finished.family === 'wallet_execute' &&
    finished.fingerprint === hash
  )
    return answerOf(deps, finished);
  return null;
}

/** Pays from a wallet as `POST /v1/wallets/{id}/execute` does; the reply is the route's. */
export async function executeWalletPayment(
  deps: AppDeps,
  principal: Principal,
  walletId: string,
  body: WalletExecuteBody,
  requestId: string,
): Promise<Reply> {
  if (body.attempt_id !== undefined) {
    // Usually a retry: a finished attempt of this very request is answered; anything else goes on to the
    // wallet lookup and the claim, which judge it.
    const finished = await finishedReply(deps, principal, walletId, body.attempt_id, body);
    if (finished) return finished;
  }
  const wallet = await getWallet(deps.db, principal.orgId, principal.projectId, walletId);
  if (!isCurrency(body.currency)) throw new ApiError(400, 'invalid_body', 'Unknown currency');
  const minor = toMinorUnits(body.amount, body.currency);
  if (minor === null) {
    throw new ApiError(
      400,
      'invalid_body',
      `amount has more decimals than ${body.currency} has minor units`,
      {
        issues: [
          {
            path: '/amount',
            message: `must be a whole number of ${body.currency} minor units`,
            keyword: 'multipleOf',
          },
        ],
      },
    );
  }
  // JSON numbers reach 1e308; a ledger amount is a PostgreSQL bigint. Refused here, before anything is written.
  if (minor > MAX_LEDGER_MINOR) {
    throw new ApiError(
      400,
      'invalid_body',
      `amount is larger than a wallet can hold (${MAX_LEDGER_MINOR} ${body.currency} minor units)`,
      {
        issues: [
          { path: '/amount', message: `must be at most ${MAX_LEDGER_MINOR} minor units`, keyword: 'maximum' },
        ],
      },
    );
  }
  const attemptId = body.attempt_id ?? sortableId('att');
  const input: SpendInput = {
    orgId: principal.orgId,
    projectId: principal.projectId,
    environment: principal.environment,
    attemptId,
    walletId: wallet.id,
    agentId: wallet.agent_id ?? wallet.id,
    amountMinor: minor.toString(),
    currency: body.currency,
    recipient: body.recipient,
    description: body.description,
    mandateId: body.mandate_id,
    purpose: body.purpose ?? null,
    preferredMethod: body.preferred_method ?? null,
    targetCurrency: body.target_currency ?? null,
    metadata: body.metadata ?? {},
    requestId,
  };
  return runSpendAttempt(deps, principal, wallet, body, input);
}

/**
 * Claims the attempt of this request (or finds it) and runs it as the engine's attempt workflow, answering
 * within the engine's bounded wait: wallet execute's own path, and a catalog money tool's call.
 */
export async function runSpendAttempt(
  deps: AppDeps,
  principal: Principal,
  wallet: WalletRow,
  body: unknown,
  input: SpendInput,
): Promise<Reply> {
  const attemptId = input.attemptId;
  const attempt: AttemptInput = { family: 'wallet_execute', input };
  const workflowId = attemptWorkflowId('wallet_execute', principal.orgId, attemptId);
  const claim = await claimAttempt(deps.db, {
    family: 'wallet_execute',
    orgId: principal.orgId,
    projectId: principal.projectId,
    environment: principal.environment,
    walletId: wallet.id,
    attemptId,
    fingerprint: fingerprint(principal.projectId, wallet.id, body),
    request: body,
    workflowType: ATTEMPT_WORKFLOW,
    workflowId,
    amountMinor: input.amountMinor,
    currency: input.currency,
  });
  if (claim.row.status !== 'processing') return answerOf(deps, claim.row);
  if (claim.created && wallet.status !== 'active') {
    // Nothing ran: free the attempt id so the caller can retry once the wallet is active again.
    await releaseClaim(deps.db, principal.orgId, attemptId);
    throw new ApiError(409, 'wallet_not_active', `The wallet is ${wallet.status}; only active wallets pay`, {
      status: wallet.status,
    });
  }
  // A key pays only through its own environment's provider; without one nothing is held or sent.
  if (claim.created && !input.providerTool && !providerEndpoint(deps.config, 'payments', input.environment)) {
    await releaseClaim(deps.db, principal.orgId, attemptId);
    throw new ApiError(
      503,
      'provider_unavailable',
      new EndpointNotConfigured('payments', input.environment).message,
    );
  }
  // The workflow may close before the update reaches it: its outcome is then in Postgres (or the
  // attempt is being finished, and the caller is told to come back). An attempt claimed under the workflow
  // type from before the engine is joined through its own messages.
  const answer: Promise<Reply> =
    claim.row.workflow_type === ATTEMPT_WORKFLOW
      ? runAttempt(deps.temporal, attempt).then((done): Reply => {
          const reply = engineReply(attempt, done, UNCERTAIN);
          return { status: reply.httpStatus, body: reply.body };
        })
      : joinLegacyWalletSpend(deps.temporal, claim.row.workflow_id).then((done): Reply => {
          if (done.status === 'provider_uncertain') throw attemptInProgress(attemptId, UNCERTAIN);
          return { status: done.httpStatus, body: done.body };
        });
  // Only the request that claimed the attempt gets a fresh answer, whichever request's start ran the
  // workflow; every other one (a concurrent duplicate, a retry after a lost answer, another API process)
  // gets the stored reply, byte for byte. A claimant told to come back leaves its fresh answer owed.
  const finished = async (fresh: boolean) => {
    const row = await readAttempt(deps.db, principal.orgId, attemptId);
    if (!row || row.status === 'processing') return null;
    return fresh ? freshReply(stored(deps, row)) : answerOf(deps, row);
  };
  let outcome: Reply;
  let read = false; // the outcome was read from PostgreSQL, already shaped for this presentation
  // The outcome is read as soon as it is stored, when that is heard before the update's answer arrives; a
  // failed read leaves the answer to the update.
  const ending = deps.attemptEndings?.ended(principal.orgId, attemptId);
  let heard: Reply | null = null;
  const recorded = ending?.heard
    .then(() => heardAnswer(deps, principal.orgId, attemptId, claim.created))
    .then(
      (reply) => (reply ? (heard = reply) : pending()),
      () => pending(),
    );
  try {
    outcome = await awaitAttempt<Reply>(recorded ? Promise.race([answer, recorded]) : answer, {
      attemptId,
      inProgressMessage: IN_PROGRESS,
      stored: () => {
        read = true;
        return finished(claim.created);
      },
    });
  } catch (error) {
    if (claim.created && error instanceof ApiError && error.code === 'attempt_in_progress')
      await oweFreshAnswer(deps.db, 'wallet', principal.orgId, attemptId);
    throw error;
  } finally {
    ending?.cancel();
  }
  if (claim.created || read || outcome === heard) return outcome;
  return (
    (await finished(false)) ?? { ...outcome, headers: { ...outcome.headers, 'Idempotent-Replayed': 'true' } }
  );
}
