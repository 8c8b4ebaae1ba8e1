// Wallet-execute idempotency in Postgres: the attempt key with its request fingerprint, final status and
// stored response (Stripe / Brandur Leach style). Claiming is one INSERT; a finished attempt is answered
// from here byte for byte; a changed fingerprint is attempt_id_conflict.
import { createHash } from 'node:crypto';
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabasePool } from '../../runtime/database';
import { canonicalize } from '../canonical-json';
import { ApiError } from '../errors';
import type { EventType } from '../../contracts/event-catalog';
import { recordEvent, type EventScope } from '../events/record';
import type { SpendOutcome } from '../../contracts/spend';

export const attemptRow = z.object({
  org_id: z.string(),
  attempt_id: z.string(),
  project_id: z.string(),
  wallet_id: z.string(),
  request_hash: z.string(),
  workflow_id: z.string(),
  status: z.enum(['processing', 'completed', 'denied', 'requires-approval', 'failed']),
  response_status: z.number().nullable(),
  response_body: z.record(z.unknown()).nullable(),
  /** The answer's bytes as first sent; a replay sends exactly these. */
  response_text: z.string().nullable(),
  /** The claimant answered attempt_in_progress: the first presentation to find the outcome answers it fresh. */
  fresh_owed: z.boolean(),
});
export type AttemptRow = z.infer<typeof attemptRow>;
const COLUMNS = sql.fragment`org_id, attempt_id, project_id, wallet_id, request_hash, workflow_id, status, response_status, response_body, response_text, fresh_owed`;
const claimRow = attemptRow.extend({ created: z.boolean() });

/** The bytes a replay of this finished attempt sends: the first answer's own, or (answered before they were kept) the jsonb's. */
export function replayBytes(row: AttemptRow): Buffer {
  return Buffer.from(row.response_text ?? JSON.stringify(row.response_body), 'utf8');
}
const splitClaim = ({
  created,
  ...row
}: z.infer<typeof claimRow>): { row: AttemptRow; created: boolean } => ({ row, created });

export function requestHash(projectId: string, walletId: string, body: unknown): string {
  return createHash('sha256')
    .update(canonicalize({ project_id: projectId, wallet_id: walletId, body }))
    .digest('hex');
}

/**
 * Claims the attempt or finds it. Returns the row and whether this call created it. A row of another
 * project under the same organization and attempt id, or another fingerprint, is attempt_id_conflict.
 */
export async function claimAttempt(
  db: CommonQueryMethods,
  input: {
    orgId: string;
    projectId: string;
    walletId: string;
    attemptId: string;
    hash: string;
    request: unknown;
    workflowId: string;
  },
): Promise<{ row: AttemptRow; created: boolean }> {
  // One round trip either way: the insert and the read of a taken id are one statement. When the
  // conflicting row was committed after the statement's snapshot, it is read afresh.
  const claimed = await db.maybeOne(sql.type(claimRow)`
    WITH inserted AS (
      INSERT INTO spend_attempts (org_id, attempt_id, project_id, wallet_id, request_hash, request, workflow_id)
      VALUES (${input.orgId}, ${input.attemptId}, ${input.projectId}, ${input.walletId}, ${input.hash}, ${sql.jsonb(input.request as never)}, ${input.workflowId})
      ON CONFLICT (org_id, attempt_id) DO NOTHING
      RETURNING ${COLUMNS})
    SELECT ${COLUMNS}, true AS created FROM inserted
    UNION ALL
    SELECT ${COLUMNS}, false AS created FROM spend_attempts
    WHERE org_id = ${input.orgId} AND attempt_id = ${input.attemptId} AND NOT EXISTS (SELECT 1 FROM inserted)`);
  if (claimed?.created) return splitClaim(claimed);
  const existing = claimed ? splitClaim(claimed).row : await readAttempt(db, input.orgId, input.attemptId);
  if (!existing)
    throw new ApiError(409, 'ledger_conflict', 'The attempt changed while it was being claimed; retry', {
      reason: 'concurrent_write',
    });
  if (existing.request_hash !== input.hash || existing.project_id !== input.projectId) {
    throw new ApiError(
      409,
      'attempt_id_conflict',
      'This attempt_id was already used with a different request; use a new attempt_id',
      { attempt_id: input.attemptId },
    );
  }
  return { row: existing, created: false };
}

/** The claimant's wait ran out before the outcome: its fresh answer goes to the first to find the outcome. */
export async function oweFreshAnswer(
  db: CommonQueryMethods,
  orgId: string,
  attemptId: string,
): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE spend_attempts SET fresh_owed = true WHERE org_id = ${orgId} AND attempt_id = ${attemptId}`);
}

/** Takes the owed fresh answer of a finished attempt; true for exactly one caller. */
export async function takeFreshAnswer(
  db: CommonQueryMethods,
  orgId: string,
  attemptId: string,
): Promise<boolean> {
  const taken = await db.maybeOne(sql.unsafe`
    UPDATE spend_attempts SET fresh_owed = false
    WHERE org_id = ${orgId} AND attempt_id = ${attemptId} AND fresh_owed AND status <> 'processing' RETURNING attempt_id`);
  return taken !== null;
}

/** Gives an attempt id back when nothing ran under it (the wallet was not active when it was claimed). */
export async function releaseClaim(db: CommonQueryMethods, orgId: string, attemptId: string): Promise<void> {
  await db.query(
    sql.unsafe`DELETE FROM spend_attempts WHERE org_id = ${orgId} AND attempt_id = ${attemptId} AND status = 'processing'`,
  );
}

export async function readAttempt(
  db: CommonQueryMethods,
  orgId: string,
  attemptId: string,
): Promise<AttemptRow | null> {
  return db.maybeOne(
    sql.type(
      attemptRow,
    )`SELECT ${COLUMNS} FROM spend_attempts WHERE org_id = ${orgId} AND attempt_id = ${attemptId}`,
  );
}

const PAYMENT_EVENTS = {
  completed: 'payment.succeeded',
  failed: 'payment.failed',
  denied: 'payment.denied',
  'requires-approval': 'payment.requires_approval',
} as const satisfies Record<SpendOutcome['status'], EventType>;

/** Stores the outcome once (the first finish wins) and writes the payment event in the same transaction. */
export async function finishAttempt(
  db: DatabasePool,
  scope: EventScope,
  attemptId: string,
  outcome: SpendOutcome,
  approvalId: string | null,
): Promise<void> {
  await db.transaction(async (tx) => {
    if (approvalId === null) {
      const updated = await tx.maybeOne(sql.unsafe`
        UPDATE spend_attempts SET status = ${outcome.status}, response_status = ${outcome.httpStatus}, response_body = ${sql.jsonb(outcome.body as never)},
          response_text = ${JSON.stringify(outcome.body)}, provider_payment_id = ${outcome.providerPaymentId}, finished_at = now()
        WHERE org_id = ${scope.orgId} AND attempt_id = ${attemptId} AND status = 'processing'
        RETURNING attempt_id`);
      if (!updated) return; // a retried activity: the outcome and its event are already stored
    } else {
      const seen = await tx.exists(sql.unsafe`
        SELECT 1 FROM events WHERE org_id = ${scope.orgId} AND type = ${PAYMENT_EVENTS[outcome.status]}
          AND data->>'attempt_id' = ${attemptId} AND data->>'approval_id' = ${approvalId}`);
      if (seen) return;
    }
    await recordEvent(tx, scope, PAYMENT_EVENTS[outcome.status], {
      attempt_id: attemptId,
      approval_id: approvalId,
      status: outcome.status,
      provider_payment_id: outcome.providerPaymentId,
      wallet: (outcome.body as { wallet?: unknown }).wallet ?? null,
    });
  });
}
