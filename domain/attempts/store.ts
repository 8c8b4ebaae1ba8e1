// The attempts table: the one idempotency layer of every money-out family (Stripe / Brandur Leach style).
// Claiming an attempt id is one INSERT that also reads a taken id; a finished attempt is answered from here
// byte for byte; a changed fingerprint is attempt_id_conflict. Ids are unique per organization and id
// space: wallet executes and paid tool calls share `wallet`, consumer spends have `consumer`
// (domain/consumer-payments/attempts.ts keeps their own columns on the same rows).
import { createHash } from 'node:crypto';
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabasePool } from '../../runtime/database';
import { afterCommit } from '../../runtime/telemetry/after-commit';
import { countAttempt, countEvent } from '../../runtime/telemetry/metrics';
import { canonicalize } from '../canonical-json';
import { ApiError } from '../errors';
import type { EventType } from '../../contracts/event-catalog';
import { eventInsertFrom, recordEvent, toEventData, type EventScope } from '../events/record';
import type { AttemptFamily, AttemptReply, AttemptStatus, EngineFamily } from '../../contracts/attempt';

export type IdSpace = 'wallet' | 'consumer';

export const attemptRow = z.object({
  org_id: z.string(),
  attempt_id: z.string(),
  family: z.enum(['wallet_execute', 'tool_charge', 'card_authorization']),
  project_id: z.string(),
  wallet_id: z.string(),
  fingerprint: z.string(),
  workflow_type: z.string(),
  workflow_id: z.string(),
  status: z.enum(['processing', 'completed', 'denied', 'requires_approval', 'failed']),
  response_status: z.number().nullable(),
  response_body: z.record(z.unknown()).nullable(),
  /** The answer's bytes as first sent; a replay sends exactly these. */
  response_text: z.string().nullable(),
  /** The claimant answered attempt_in_progress: the first presentation to find the outcome answers it fresh. */
  fresh_owed: z.boolean(),
});
export type AttemptRow = z.infer<typeof attemptRow>;
// The jsonb body is sent only for rows answered before their bytes were kept (replayBytes).
const COLUMNS = sql.fragment`org_id, attempt_id, family, project_id, wallet_id, fingerprint, workflow_type, workflow_id, status,
  response_status, CASE WHEN response_text IS NULL THEN response_body END AS response_body, response_text, fresh_owed`;
const claimRow = attemptRow.extend({ created: z.boolean() });

/** The bytes a replay of this finished attempt sends: the first answer's own, or (answered before they were kept) the jsonb's. */
export function replayBytes(row: Pick<AttemptRow, 'response_text' | 'response_body'>): Buffer {
  return Buffer.from(row.response_text ?? JSON.stringify(row.response_body), 'utf8');
}

/** The request's fingerprint: the project and the wallet are bound beside the body. */
export function fingerprint(projectId: string, walletId: string, body: unknown): string {
  return createHash('sha256')
    .update(canonicalize({ project_id: projectId, wallet_id: walletId, body }))
    .digest('hex');
}

export interface WalletClaim {
  /** Every family of the wallet id space: the engine's, and card authorizations decided in one transaction. */
  family: Exclude<AttemptFamily, 'consumer_spend'>;
  orgId: string;
  projectId: string;
  environment: EventScope['environment'];
  walletId: string;
  attemptId: string;
  fingerprint: string;
  request: unknown;
  workflowType: string;
  workflowId: string;
  /** What the attempt moves, for operators (a wallet execute's request keeps the amount as sent). */
  amountMinor: string | null;
  currency: string | null;
}

/**
 * Claims the attempt or finds it. Returns the row and whether this call created it. A row of another
 * project or family under the same organization and attempt id, or another fingerprint, is
 * attempt_id_conflict.
 */
export async function claimAttempt(
  db: CommonQueryMethods,
  claim: WalletClaim,
): Promise<{ row: AttemptRow; created: boolean }> {
  // One round trip either way: the insert and the read of a taken id are one statement. When the
  // conflicting row was committed after the statement's snapshot, it is read afresh.
  const claimed = await db.maybeOne(sql.type(claimRow)`
    WITH inserted AS (
      INSERT INTO attempts (org_id, attempt_id, family, project_id, environment, wallet_id, fingerprint, request, workflow_type, workflow_id,
        amount_minor, currency)
      VALUES (${claim.orgId}, ${claim.attemptId}, ${claim.family}, ${claim.projectId}, ${claim.environment}, ${claim.walletId},
        ${claim.fingerprint}, ${sql.jsonb(claim.request as never)}, ${claim.workflowType}, ${claim.workflowId},
        ${claim.amountMinor}, ${claim.currency})
      ON CONFLICT (org_id, id_space, attempt_id) DO NOTHING
      RETURNING ${COLUMNS})
    SELECT ${COLUMNS}, true AS created FROM inserted
    UNION ALL
    SELECT ${COLUMNS}, false AS created FROM attempts
    WHERE org_id = ${claim.orgId} AND id_space = 'wallet' AND attempt_id = ${claim.attemptId} AND NOT EXISTS (SELECT 1 FROM inserted)`);
  const { created = false, ...found } = claimed ?? {};
  if (claimed && created) return { row: found as AttemptRow, created: true };
  const existing = claimed ? (found as AttemptRow) : await readAttempt(db, claim.orgId, claim.attemptId);
  if (!existing)
    throw new ApiError(409, 'ledger_conflict', 'The attempt changed while it was being claimed; retry', {
      reason: 'concurrent_write',
    });
  if (
    existing.fingerprint !== claim.fingerprint ||
    existing.project_id !== claim.projectId ||
    existing.family !== claim.family
  ) {
    throw new ApiError(
      409,
      'attempt_id_conflict',
      'This attempt_id was already used with a different request; use a new attempt_id',
      { attempt_id: claim.attemptId },
    );
  }
  return { row: existing, created: false };
}

/** A wallet execute's or paid tool call's row (id space `wallet`). */
export async function readAttempt(
  db: CommonQueryMethods,
  orgId: string,
  attemptId: string,
): Promise<AttemptRow | null> {
  return db.maybeOne(sql.type(attemptRow)`
    SELECT ${COLUMNS} FROM attempts WHERE org_id = ${orgId} AND id_space = 'wallet' AND attempt_id = ${attemptId}`);
}

/** What a presentation of a taken attempt id is judged by first, and the answer's bytes as first sent. */
const presentedRow = z.object({
  project_id: z.string(),
  fingerprint: z.string(),
  status: z.string(),
  caller_attempt: z.boolean().nullable(),
  fresh_owed: z.boolean(),
  response_status: z.number().nullable(),
  response_text: z.string().nullable(),
});
export type PresentedRow = z.infer<typeof presentedRow>;

/**
 * An attempt presented again, read by key in one statement with nothing decoded: a settled one is
 * answered from these columns alone, anything else is read in full by its family's store.
 */
export async function readPresented(
  db: CommonQueryMethods,
  space: IdSpace,
  orgId: string,
  attemptId: string,
): Promise<PresentedRow | null> {
  return db.maybeOne(sql.type(presentedRow)`
    SELECT project_id, fingerprint, status, caller_attempt, fresh_owed, response_status, response_text
    FROM attempts WHERE org_id = ${orgId} AND id_space = ${space} AND attempt_id = ${attemptId}`);
}

/** The claimant's wait ran out before the outcome: its fresh answer goes to the first to find the outcome. */
export async function oweFreshAnswer(
  db: CommonQueryMethods,
  space: IdSpace,
  orgId: string,
  attemptId: string,
): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE attempts SET fresh_owed = true WHERE org_id = ${orgId} AND id_space = ${space} AND attempt_id = ${attemptId}`);
}

/** Takes the owed fresh answer of a finished attempt; true for exactly one caller. */
export async function takeFreshAnswer(
  db: CommonQueryMethods,
  space: IdSpace,
  orgId: string,
  attemptId: string,
): Promise<boolean> {
  const taken = await db.maybeOne(sql.unsafe`
    UPDATE attempts SET fresh_owed = false
    WHERE org_id = ${orgId} AND id_space = ${space} AND attempt_id = ${attemptId} AND fresh_owed
      AND status NOT IN ('processing', 'dispatch_uncertain') RETURNING attempt_id`);
  return taken !== null;
}

/** Gives an attempt id back when nothing ran under it (the wallet was not active when it was claimed). */
export async function releaseClaim(db: CommonQueryMethods, orgId: string, attemptId: string): Promise<void> {
  await db.query(sql.unsafe`
    DELETE FROM attempts WHERE org_id = ${orgId} AND id_space = 'wallet' AND attempt_id = ${attemptId} AND status = 'processing'`);
}

/** The channel an attempt of the wallet id space is announced on when its outcome is stored. */
export const ATTEMPT_ENDED_CHANNEL = 'gateway_attempt_ended';

/**
 * The announcement of one attempt's end: its organization (an id without a slash) and attempt id, digested
 * when that would come near a notification's size limit.
 */
export function endedPayload(orgId: string, attemptId: string): string {
  const key = `${orgId}/${attemptId}`;
  return key.length <= 1_000 ? key : createHash('sha256').update(key).digest('hex');
}

const PAYMENT_EVENTS = {
  completed: 'payment.succeeded',
  failed: 'payment.failed',
  denied: 'payment.denied',
  requires_approval: 'payment.requires_approval',
} as const satisfies Record<AttemptStatus, EventType>;

export interface Finish {
  family: EngineFamily;
  attemptId: string;
  /** Set when an approval replays the attempt: the row keeps the first answer, the event is written once. */
  approvalId: string | null;
  status: AttemptStatus;
  reply: AttemptReply;
  providerPaymentId: string | null;
}

/** An event a family writes with its attempt's end in place of the payment event (a card authorization's). */
export interface FamilyEvent {
  type: EventType;
  data: Record<string, unknown>;
}

/** Stores the outcome once (the first finish wins) and writes the payment event in the same transaction. */
export async function finishAttempt(db: DatabasePool, scope: EventScope, done: Finish): Promise<void> {
  await db.transaction((tx) => endAttempt(tx, scope, done));
}

/**
 * The one way an attempt ends, in the caller's transaction: the outcome stored once, with the payment event,
 * or the family's own events when it names them. A card authorization ends here inside the transaction that
 * decided it. False when the attempt had already ended (a retried step), and nothing is written.
 */
export async function endAttempt(
  tx: CommonQueryMethods,
  scope: EventScope,
  done: Finish,
  events?: FamilyEvent[],
): Promise<boolean> {
  const { attemptId, approvalId, reply } = done;
  const type = PAYMENT_EVENTS[done.status];
  const payment = {
    attempt_id: attemptId,
    approval_id: approvalId,
    status: reply.body.status,
    provider_payment_id: done.providerPaymentId,
    wallet: reply.body.wallet ?? null,
  };
  if (approvalId === null) {
    // The outcome and its payment event are one statement (no row when the attempt had already ended).
    const storing = sql.fragment`
      UPDATE attempts SET status = ${done.status}, response_status = ${reply.httpStatus}, response_body = ${sql.jsonb(reply.body as never)},
        response_text = ${JSON.stringify(reply.body)}, provider_payment_id = ${done.providerPaymentId}, finished_at = now(), updated_at = now()
      WHERE org_id = ${scope.orgId} AND id_space = 'wallet' AND attempt_id = ${attemptId} AND status = 'processing'
      RETURNING attempt_id`;
    // Whoever waits on the attempt hears it end when this commits (api/attempt-endings.ts).
    const updated = events
      ? await tx.maybeOne(sql.unsafe`${storing}`)
      : await tx.maybeOne(sql.unsafe`
      WITH stored AS (${storing}),
      event AS (${eventInsertFrom(scope, type, sql.fragment`SELECT ${sql.jsonb(toEventData(payment) as never)} FROM stored`)})
      SELECT attempt_id, pg_notify(${ATTEMPT_ENDED_CHANNEL}, ${endedPayload(scope.orgId, attemptId)}) FROM stored`);
    if (!updated) return false; // a retried activity: the outcome and its event are already stored
    if (!events) afterCommit(tx, () => countEvent(type, payment));
  } else {
    const seen = await tx.exists(sql.unsafe`
      SELECT 1 FROM events WHERE org_id = ${scope.orgId} AND type = ${type}
        AND data->>'attempt_id' = ${attemptId} AND data->>'approval_id' = ${approvalId}`);
    if (seen) return false;
    if (!events) await recordEvent(tx, scope, type, payment);
  }
  if (events) for (const event of events) await recordEvent(tx, scope, event.type, event.data);
  afterCommit(tx, () => countAttempt(done.family, PAYMENT_EVENTS[done.status].slice('payment.'.length)));
  return true;
}
