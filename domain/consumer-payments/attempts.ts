// A consumer spend's row of the attempts table (family consumer_spend): the claim a request makes on its
// attempt id (with the request fingerprint), the stored answer a replay returns verbatim, and the marks the workflow leaves on the way.
import { sql, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import { afterCommit } from '../../runtime/telemetry/after-commit';
import { countAttempt, countEvent } from '../../runtime/telemetry/metrics';
import { oweFreshAnswer as oweFresh, takeFreshAnswer as takeFresh } from '../attempts/store';
import { eventInsertFrom, toEventData, type EventScope } from '../events/record';
import type { EventType } from '../../contracts/event-catalog';
import { ATTEMPT_WORKFLOW } from '../../contracts/attempt';
import type { SpendAnswer, SpendRequest } from '../../contracts/consumer-spend';

const rowFields = z.object({
  org_id: z.string(),
  project_id: z.string(),
  attempt_id: z.string(),
  caller_attempt: z.boolean(),
  mandate_id: z.string(),
  consumer_id: z.string().nullable(),
  fingerprint: z.string(),
  /** The workflow type that runs it: the one engine's, or (claimed before it) consumerSpendAttempt. */
  workflow_type: z.string(),
  workflow_id: z.string(),
  dispatch_key: z.string(),
  status: z.enum(['processing', 'completed', 'failed', 'refused', 'requires_approval', 'dispatch_uncertain']),
  holds_money: z.boolean(),
  hold_id: z.string().nullable(),
  approval_id: z.string().nullable(),
  response_status: z.number().nullable(),
  response_body: z.record(z.unknown()).nullable(),
  response_text: z.string().nullable(),
  /** The claimant answered attempt_in_progress: the first presentation to find the answer gets it fresh. */
  fresh_owed: z.boolean(),
});

/**
 * The body is read from the bytes first sent when they are kept (jsonb has its own key order), so every
 * reader (a replay, a retried settle step, a joined caller) sees the keys in the order of the first answer.
 */
const withOriginalBody = <T extends z.infer<typeof rowFields>>(row: T): T =>
  row.response_text === null
    ? row
    : { ...row, response_body: JSON.parse(row.response_text) as Record<string, unknown> };

export const attemptRow = rowFields.transform(withOriginalBody);
export type AttemptRow = z.infer<typeof attemptRow>;

// The jsonb body is sent only for rows that kept no bytes: the bytes are read in its place (withOriginalBody).
const COLUMNS = sql.fragment`org_id, project_id, attempt_id, caller_attempt, mandate_id, consumer_id, fingerprint, workflow_type, workflow_id, dispatch_key, status,
  holds_money, hold_id, approval_id, response_status, CASE WHEN response_text IS NULL THEN response_body END AS response_body, response_text, fresh_owed`;

const claimRow = rowFields.extend({ created: z.boolean() }).transform(withOriginalBody);

/** The answer a row that stored one holds, as first sent (its claimant's, not a replay). */
export const answerOf = (row: AttemptRow): SpendAnswer => ({
  httpStatus: row.response_status ?? 200,
  status: row.status as SpendAnswer['status'],
  body: row.response_body!,
});

/** An answered attempt's stored answer (an uncertain dispatch is not one: it is still being settled), or null. */
export const storedAnswer = (row: AttemptRow): SpendAnswer | null =>
  row.response_body && row.status !== 'dispatch_uncertain' && row.status !== 'processing'
    ? answerOf(row)
    : null;

/**
 * The answer an attempt stored, read by key: the one its caller gets, an uncertain dispatch's included (what
 * the caller is told meanwhile); null while it has none.
 */
export async function readStoredAnswer(
  db: CommonQueryMethods,
  orgId: string,
  attemptId: string,
): Promise<SpendAnswer | null> {
  const row = await readAttempt(db, orgId, attemptId);
  if (!row?.response_body || row.status === 'processing') return null;
  return answerOf(row);
}

/** The claimant's wait ran out before the answer: the one idempotency layer's fresh-answer debt. */
export const oweFreshAnswer = (db: CommonQueryMethods, orgId: string, attemptId: string): Promise<void> =>
  oweFresh(db, 'consumer', orgId, attemptId);

/** Takes the owed fresh answer of an answered attempt; true for exactly one caller. */
export const takeFreshAnswer = (db: CommonQueryMethods, orgId: string, attemptId: string): Promise<boolean> =>
  takeFresh(db, 'consumer', orgId, attemptId);

/**
 * Claims the attempt id; when it is taken, returns the existing row (created: false) for the caller to
 * judge. One round trip either way: the insert and the read of a taken id are one statement. The conflict
 * has no target because the row has two unique keys, (org_id, attempt_id) and dispatch_key (derived from
 * the same pair): a racing first presentation can trip either one first, and both mean the id is taken.
 */
export async function claimAttempt(
  db: CommonQueryMethods,
  req: SpendRequest,
): Promise<{ row: AttemptRow; created: boolean }> {
  const claimed = await db.maybeOne(sql.type(claimRow)`
    WITH inserted AS (
      INSERT INTO attempts (org_id, attempt_id, family, project_id, environment, caller_attempt, mandate_id, rail, amount_minor, currency, payee,
        fingerprint, workflow_type, workflow_id, dispatch_key)
      VALUES (${req.orgId}, ${req.attemptId}, 'consumer_spend', ${req.projectId}, ${req.environment}, ${req.callerAttempt}, ${req.mandateId}, ${req.rail},
        ${req.amountMinor}, ${req.currency}, ${req.payeeCanonical}, ${req.fingerprint}, ${ATTEMPT_WORKFLOW}, ${req.workflowId}, ${req.dispatchKey})
      ON CONFLICT DO NOTHING
      RETURNING ${COLUMNS})
    SELECT ${COLUMNS}, true AS created FROM inserted
    UNION ALL
    SELECT ${COLUMNS}, false AS created FROM attempts
    WHERE family = 'consumer_spend' AND org_id = ${req.orgId} AND attempt_id = ${req.attemptId} AND NOT EXISTS (SELECT 1 FROM inserted)`);
  if (claimed) {
    const { created, ...row } = claimed;
    return { row, created };
  }
  // The conflicting row was committed after this statement's snapshot was taken: read it afresh.
  return { row: (await readAttempt(db, req.orgId, req.attemptId))!, created: false };
}

/** Attempt ids are per organization (the workflow id is too); the row says which project made it. */
export async function readAttempt(
  db: CommonQueryMethods,
  orgId: string,
  attemptId: string,
): Promise<AttemptRow | null> {
  return db.maybeOne(
    sql.type(
      attemptRow,
    )`SELECT ${COLUMNS} FROM attempts WHERE family = 'consumer_spend' AND org_id = ${orgId} AND attempt_id = ${attemptId}`,
  );
}

export async function lockAttempt(
  tx: CommonQueryMethods,
  scope: Pick<EventScope, 'orgId' | 'projectId'>,
  attemptId: string,
): Promise<AttemptRow> {
  return tx.one(sql.type(attemptRow)`
    SELECT ${COLUMNS} FROM attempts WHERE family = 'consumer_spend' AND org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND attempt_id = ${attemptId} FOR UPDATE`);
}

export async function findByDispatchKey(
  db: CommonQueryMethods,
  dispatchKey: string,
): Promise<AttemptRow | null> {
  return db.maybeOne(
    sql.type(
      attemptRow,
    )`SELECT ${COLUMNS} FROM attempts WHERE family = 'consumer_spend' AND dispatch_key = ${dispatchKey}`,
  );
}

export async function markHeld(
  tx: CommonQueryMethods,
  scope: EventScope,
  attemptId: string,
  mark: { consumerId: string; holdId: string },
): Promise<void> {
  await tx.query(sql.unsafe`
    UPDATE attempts SET holds_money = true, hold_id = ${mark.holdId}, consumer_id = ${mark.consumerId}, updated_at = now()
    WHERE family = 'consumer_spend' AND org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND attempt_id = ${attemptId}`);
}

/**
 * Stores the answer the caller gets (and a replay gets verbatim), with the payment event its status comes
 * with, in one statement; `completed` also ends the money hold.
 */
export async function storeAnswer(
  tx: CommonQueryMethods,
  scope: EventScope,
  attemptId: string,
  answer: SpendAnswer,
  extra: {
    consumerId?: string | null;
    providerPaymentId?: string | null;
    receiptId?: string | null;
    approvalId?: string | null;
    holdsMoney?: boolean;
  },
  event: { data: Record<string, unknown> },
  /** Other writes of the same step (a reservation's end), made in the same statement. */
  alongside: FragmentSqlToken[] = [],
): Promise<void> {
  const final = answer.status !== 'dispatch_uncertain' && answer.status !== 'requires_approval';
  const data = toEventData(event.data);
  const type = PAYMENT_EVENTS[answer.status];
  await tx.query(sql.unsafe`
    WITH stored AS (
      UPDATE attempts SET status = ${answer.status}, response_status = ${answer.httpStatus}, response_body = ${sql.jsonb(answer.body as never)},
        response_text = ${JSON.stringify(answer.body)}, consumer_id = COALESCE(${extra.consumerId ?? null}, consumer_id), provider_payment_id = COALESCE(${extra.providerPaymentId ?? null}, provider_payment_id),
        receipt_id = COALESCE(${extra.receiptId ?? null}, receipt_id), approval_id = COALESCE(${extra.approvalId ?? null}, approval_id),
        holds_money = ${extra.holdsMoney ?? false} AND holds_money, updated_at = now(), finished_at = ${final ? sql.fragment`now()` : sql.fragment`NULL`}
      WHERE family = 'consumer_spend' AND org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND attempt_id = ${attemptId})
    ${
      alongside.length > 0
        ? sql.join(
            alongside.map((write, i) => sql.fragment`, ${sql.identifier([`alongside_${i}`])} AS (${write})`),
            sql.fragment``,
          )
        : sql.fragment``
    }
    ${eventInsertFrom(scope, type, sql.fragment`SELECT ${sql.jsonb(data as never)}`)}`);
  // Each stored answer comes with its payment event: counted by what it says.
  afterCommit(tx, () => {
    countAttempt('consumer_spend', PAYMENT_OUTCOMES[answer.status]);
    countEvent(type, data);
  });
}

/** The payment event each stored answer comes with. */
const PAYMENT_EVENTS: Record<SpendAnswer['status'], EventType> = {
  completed: 'payment.succeeded',
  failed: 'payment.failed',
  refused: 'payment.failed',
  requires_approval: 'payment.requires_approval',
  dispatch_uncertain: 'payment.uncertain',
};

/** The metric outcome each stored answer counts as. */
const PAYMENT_OUTCOMES: Record<SpendAnswer['status'], string> = {
  completed: 'succeeded',
  failed: 'failed',
  refused: 'failed',
  requires_approval: 'requires_approval',
  dispatch_uncertain: 'uncertain',
};

/** A person approved the held attempt: its replay workflow runs it, and a caller presenting it joins that run. */
export async function reopenForApproval(
  tx: CommonQueryMethods,
  scope: EventScope,
  attemptId: string,
  workflowType: string,
  workflowId: string,
): Promise<void> {
  await tx.query(sql.unsafe`
    UPDATE attempts SET status = 'processing', response_status = NULL, response_body = NULL, response_text = NULL,
      workflow_type = ${workflowType}, workflow_id = ${workflowId}, updated_at = now()
    WHERE family = 'consumer_spend' AND org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND attempt_id = ${attemptId} AND status = 'requires_approval'`);
}
