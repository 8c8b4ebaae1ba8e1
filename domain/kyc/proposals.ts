// KYC proposal rows: recording a proposal with its verified document, the provider's latest state,
// the approval's funding source (created at most once, under the row's lock), the consumer's verified
// document and the account's Pix key. Each move writes its event in the same transaction, and only
// when something moved, so a repeated webhook, poll or activity retry writes nothing twice.
import { sql, UniqueIntegrityConstraintViolationError } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabasePool } from '../../runtime/database';
import type { KeyRing } from '../crypto/secret-box';
import { recordEvent } from '../events/record';
import { insertFundingSource } from '../consumers/funding-sources';
import { markConsumerVerified } from '../consumers/consumers';
import type { Tenant } from '../consumers/tenant';
import type { KycStatus } from './status';

export const proposalRow = z.object({
  id: z.string(),
  org_id: z.string(),
  project_id: z.string(),
  environment: z.enum(['live', 'test']),
  consumer_id: z.string().nullable(),
  document_number: z.string(),
  status: z.enum(['pending', 'documentscopy_pending', 'approved', 'rejected']),
  hosted_url: z.string().nullable(),
  account: z.string().nullable(),
  funding_source_id: z.string().nullable(),
  pix_key: z.string().nullable(),
  pix_key_type: z.string().nullable(),
  pix_key_error: z.string().nullable(),
  pix_key_attempts: z.number(),
  rejection_reason: z.string().nullable(),
  onboarding_started_at: z.string().nullable(),
  document_verified_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ProposalRow = z.infer<typeof proposalRow>;

const COLUMNS = sql.fragment`id, org_id, project_id, environment, consumer_id, document_number, status, hosted_url,
  account, funding_source_id, pix_key, pix_key_type, pix_key_error, pix_key_attempts, rejection_reason,
  onboarding_started_at, document_verified_at, created_at, updated_at`;

const tenantOfRow = (row: ProposalRow): Tenant => ({
  orgId: row.org_id,
  projectId: row.project_id,
  environment: row.environment,
});

/** Records a proposal opened at the provider for a verified document (digits only). */
export async function recordProposal(
  db: CommonQueryMethods,
  tenant: Tenant,
  input: { proposalId: string; documentNumber: string; consumerId: string | null },
): Promise<ProposalRow> {
  return db.one(sql.type(proposalRow)`
    INSERT INTO kyc_proposals (id, org_id, project_id, environment, consumer_id, document_number)
    VALUES (${input.proposalId}, ${tenant.orgId}, ${tenant.projectId}, ${tenant.environment}, ${input.consumerId},
            ${input.documentNumber})
    RETURNING ${COLUMNS}`);
}

/**
 * Records a proposal whose onboarding the gateway started (its workflow follows it from here), or null
 * when the consumer already has one in flight or approved.
 */
export async function recordOnboarding(
  db: DatabasePool,
  tenant: Tenant,
  input: { proposalId: string; documentNumber: string; consumerId: string },
): Promise<ProposalRow | null> {
  try {
    return await db.transaction(async (tx) => {
      const row = await tx.one(sql.type(proposalRow)`
        INSERT INTO kyc_proposals (id, org_id, project_id, environment, consumer_id, document_number, onboarding_started_at)
        VALUES (${input.proposalId}, ${tenant.orgId}, ${tenant.projectId}, ${tenant.environment}, ${input.consumerId},
                ${input.documentNumber}, now())
        RETURNING ${COLUMNS}`);
      await recordEvent(tx, tenant, 'kyc.onboarding.started', {
        proposal_id: row.id,
        consumer_id: row.consumer_id,
        status: row.status,
      });
      return row;
    });
  } catch (error) {
    if (error instanceof UniqueIntegrityConstraintViolationError) return null;
    throw error;
  }
}

/** The consumer's onboarding in flight or approved, if any. */
export async function findStandingOnboarding(
  db: CommonQueryMethods,
  tenant: Tenant,
  consumerId: string,
): Promise<ProposalRow | null> {
  return db.maybeOne(sql.type(proposalRow)`
    SELECT ${COLUMNS} FROM kyc_proposals
    WHERE org_id = ${tenant.orgId} AND project_id = ${tenant.projectId} AND consumer_id = ${consumerId}
      AND onboarding_started_at IS NOT NULL AND status <> 'rejected'`);
}

/** How many of the consumer's onboardings the provider rejected: names the next proposal's attempt. */
export async function countRejectedOnboardings(
  db: CommonQueryMethods,
  tenant: Tenant,
  consumerId: string,
): Promise<number> {
  return db.oneFirst(sql.type(z.object({ count: z.number() }))`
    SELECT count(*)::int AS count FROM kyc_proposals
    WHERE org_id = ${tenant.orgId} AND project_id = ${tenant.projectId} AND consumer_id = ${consumerId}
      AND onboarding_started_at IS NOT NULL AND status = 'rejected'`);
}

/** The proposal whatever its tenant: the caller decides what a foreign one answers. */
export async function findProposal(db: CommonQueryMethods, proposalId: string): Promise<ProposalRow | null> {
  return db.maybeOne(sql.type(proposalRow)`SELECT ${COLUMNS} FROM kyc_proposals WHERE id = ${proposalId}`);
}

const readProposal = (db: CommonQueryMethods, proposalId: string) =>
  db.one(sql.type(proposalRow)`SELECT ${COLUMNS} FROM kyc_proposals WHERE id = ${proposalId}`);

/**
 * Stores what the provider reported, with the transition's event. A final state is never moved back by
 * a late or stale answer, and an answer that moves nothing writes nothing.
 */
export async function recordProviderState(
  db: DatabasePool,
  proposalId: string,
  state: {
    status: KycStatus;
    hostedUrl: string | null;
    account: string | null;
    rejectionReason?: string | null;
  },
): Promise<ProposalRow> {
  return db.transaction(async (tx) => {
    const before = await tx.maybeOne(
      sql.type(proposalRow)`SELECT ${COLUMNS} FROM kyc_proposals WHERE id = ${proposalId} FOR UPDATE`,
    );
    if (!before || before.status === 'approved' || before.status === 'rejected')
      return readProposal(tx, proposalId);
    const row = await tx.one(sql.type(proposalRow)`
      UPDATE kyc_proposals SET status = ${state.status}, hosted_url = ${state.hostedUrl},
        account = COALESCE(${state.account}::text, account),
        rejection_reason = ${state.status === 'rejected' ? (state.rejectionReason ?? null) : null},
        updated_at = now(),
        approved_at = CASE WHEN ${state.status} = 'approved' THEN COALESCE(approved_at, now()) ELSE approved_at END
      WHERE id = ${proposalId}
      RETURNING ${COLUMNS}`);
    if (row.status === before.status && row.hosted_url === before.hosted_url) return row;
    const scope = tenantOfRow(row);
    const base = { proposal_id: row.id, consumer_id: row.consumer_id, status: row.status };
    if (row.status === 'pending') await recordEvent(tx, scope, 'kyc.onboarding.pending', base);
    else if (row.status === 'documentscopy_pending')
      await recordEvent(tx, scope, 'kyc.onboarding.documentscopy_pending', {
        ...base,
        hosted_url: row.hosted_url,
      });
    else if (row.status === 'approved')
      await recordEvent(tx, scope, 'kyc.onboarding.approved', { ...base, account: row.account });
    else await recordEvent(tx, scope, 'kyc.onboarding.rejected', { ...base, reason: row.rejection_reason });
    return row;
  });
}

/**
 * Gives an approved proposal its funding source: the consumer's partner account at the provider,
 * holding the verified document. Under the row's lock, so concurrent polls create one; a proposal that
 * recorded no consumer takes the one the caller named.
 */
export async function attachFundingSource(
  db: DatabasePool,
  ring: KeyRing,
  tenant: Tenant,
  proposalId: string,
  consumerId: string,
): Promise<ProposalRow> {
  return db.transaction(async (tx) => {
    const row = await tx.one(
      sql.type(proposalRow)`SELECT ${COLUMNS} FROM kyc_proposals WHERE id = ${proposalId} FOR UPDATE`,
    );
    if (row.funding_source_id || row.status !== 'approved' || !row.account) return row;
    const owner = row.consumer_id ?? consumerId;
    const source = await insertFundingSource(tx, ring, tenant, {
      consumerId: owner,
      // The proposal stands where a consent would: its id makes a second source for it impossible.
      consentId: `kyc/${row.id}`,
      rail: 'pix-partner',
      currency: 'BRL',
      displayLabel: `Conta ••${row.account.replace(/[^0-9A-Za-z]/g, '').slice(-4)}`,
      providerToken: row.account,
      holderDocument: row.document_number,
    });
    return tx.one(sql.type(proposalRow)`
      UPDATE kyc_proposals SET funding_source_id = ${source.id}, consumer_id = ${owner}, updated_at = now()
      WHERE id = ${proposalId} RETURNING ${COLUMNS}`);
  });
}

/** Marks the approved proposal's consumer verified with the proposal's document, once. */
export async function verifyConsumerDocument(db: DatabasePool, proposalId: string): Promise<ProposalRow> {
  return db.transaction(async (tx) => {
    const row = await tx.one(
      sql.type(proposalRow)`SELECT ${COLUMNS} FROM kyc_proposals WHERE id = ${proposalId} FOR UPDATE`,
    );
    if (row.document_verified_at || row.status !== 'approved' || !row.consumer_id) return row;
    await markConsumerVerified(tx, tenantOfRow(row), row.consumer_id, {
      document: row.document_number,
      documentSource: 'kyc_proposal',
      kycProposalId: row.id,
    });
    return tx.one(sql.type(proposalRow)`
      UPDATE kyc_proposals SET document_verified_at = now(), updated_at = now()
      WHERE id = ${proposalId} RETURNING ${COLUMNS}`);
  });
}

export async function recordPixKey(
  db: DatabasePool,
  proposalId: string,
  key: { key: string; type: string },
): Promise<ProposalRow> {
  return db.transaction(async (tx) => {
    const row = await tx.maybeOne(sql.type(proposalRow)`
      UPDATE kyc_proposals SET pix_key = ${key.key}, pix_key_type = ${key.type}, pix_key_error = NULL, updated_at = now()
      WHERE id = ${proposalId} AND pix_key IS NULL RETURNING ${COLUMNS}`);
    if (!row) return readProposal(tx, proposalId);
    await recordEvent(tx, tenantOfRow(row), 'kyc.pix_key.registered', {
      proposal_id: row.id,
      consumer_id: row.consumer_id,
      pix_key: row.pix_key,
      pix_key_type: row.pix_key_type,
    });
    return row;
  });
}

export async function recordPixKeyError(
  db: DatabasePool,
  proposalId: string,
  reason: string,
): Promise<ProposalRow> {
  return db.transaction(async (tx) => {
    // A key registered meanwhile by a concurrent poll wins over this failure.
    const row = await tx.maybeOne(sql.type(proposalRow)`
      UPDATE kyc_proposals SET pix_key_error = ${reason}, pix_key_attempts = pix_key_attempts + 1, updated_at = now()
      WHERE id = ${proposalId} AND pix_key IS NULL RETURNING ${COLUMNS}`);
    if (!row) return readProposal(tx, proposalId);
    await recordEvent(tx, tenantOfRow(row), 'kyc.pix_key.registration_failed', {
      proposal_id: row.id,
      consumer_id: row.consumer_id,
      reason,
      attempt: row.pix_key_attempts,
    });
    return row;
  });
}

/**
 * Notes a provider webhook by its event id; false when that event was seen before (a duplicate or a
 * replay), which is then acknowledged and not applied again.
 */
export async function noteWebhookReceipt(
  db: CommonQueryMethods,
  receipt: { eventId: string; proposalId: string; status: string | null },
): Promise<boolean> {
  const inserted = await db.maybeOne(sql.type(z.object({ event_id: z.string() }))`
    INSERT INTO kyc_webhook_receipts (event_id, proposal_id, status)
    VALUES (${receipt.eventId}, ${receipt.proposalId}, ${receipt.status})
    ON CONFLICT (event_id) DO NOTHING RETURNING event_id`);
  return inserted !== null;
}

/** Forgets a receipt whose webhook could not be passed on, so the provider's retry of it is taken. */
export async function forgetWebhookReceipt(db: CommonQueryMethods, eventId: string): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM kyc_webhook_receipts WHERE event_id = ${eventId}`);
}
