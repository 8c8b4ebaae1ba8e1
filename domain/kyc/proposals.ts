// KYC proposal rows: recording a proposal with its verified document, the provider's latest state,
// the approval's funding source (created at most once, under the row's lock) and its Pix key.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabasePool } from '../../runtime/database';
import type { KeyRing } from '../crypto/secret-box';
import { insertFundingSource } from '../consumers/funding-sources';
import type { Tenant } from '../consumers/tenant';
import type { KycStatus } from './status';

export const proposalRow = z.object({
  id: z.string(),
  org_id: z.string(),
  project_id: z.string(),
  consumer_id: z.string().nullable(),
  document_number: z.string(),
  status: z.enum(['pending', 'documentscopy_pending', 'approved', 'rejected']),
  hosted_url: z.string().nullable(),
  account: z.string().nullable(),
  funding_source_id: z.string().nullable(),
  pix_key: z.string().nullable(),
  pix_key_type: z.string().nullable(),
  pix_key_error: z.string().nullable(),
});
export type ProposalRow = z.infer<typeof proposalRow>;

const COLUMNS = sql.fragment`id, org_id, project_id, consumer_id, document_number, status, hosted_url, account,
  funding_source_id, pix_key, pix_key_type, pix_key_error`;

/** Records a proposal opened at the provider for a verified document (digits only). */
export async function recordProposal(
  db: CommonQueryMethods,
  tenant: Tenant,
  input: { proposalId: string; documentNumber: string; consumerId: string | null },
): Promise<ProposalRow> {
  return db.one(sql.type(proposalRow)`
    INSERT INTO kyc_proposals (id, org_id, project_id, consumer_id, document_number)
    VALUES (${input.proposalId}, ${tenant.orgId}, ${tenant.projectId}, ${input.consumerId}, ${input.documentNumber})
    RETURNING ${COLUMNS}`);
}

/** The proposal whatever its tenant: the caller decides what a foreign one answers. */
export async function findProposal(db: CommonQueryMethods, proposalId: string): Promise<ProposalRow | null> {
  return db.maybeOne(sql.type(proposalRow)`SELECT ${COLUMNS} FROM kyc_proposals WHERE id = ${proposalId}`);
}

/** Stores what the provider reported. A final state is never moved back by a late or stale answer. */
export async function recordProviderState(
  db: CommonQueryMethods,
  proposalId: string,
  state: { status: KycStatus; hostedUrl: string | null; account: string | null },
): Promise<ProposalRow> {
  const row = await db.maybeOne(sql.type(proposalRow)`
    UPDATE kyc_proposals SET status = ${state.status}, hosted_url = ${state.hostedUrl},
      account = COALESCE(${state.account}::text, account), updated_at = now(),
      approved_at = CASE WHEN ${state.status} = 'approved' THEN COALESCE(approved_at, now()) ELSE approved_at END
    WHERE id = ${proposalId} AND status NOT IN ('approved', 'rejected')
    RETURNING ${COLUMNS}`);
  return (
    row ??
    (await db.one(sql.type(proposalRow)`SELECT ${COLUMNS} FROM kyc_proposals WHERE id = ${proposalId}`))
  );
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

export async function recordPixKey(
  db: CommonQueryMethods,
  proposalId: string,
  key: { key: string; type: string },
): Promise<ProposalRow> {
  return db.one(sql.type(proposalRow)`
    UPDATE kyc_proposals SET pix_key = COALESCE(pix_key, ${key.key}), pix_key_type = COALESCE(pix_key_type, ${key.type}),
      pix_key_error = NULL, updated_at = now()
    WHERE id = ${proposalId} RETURNING ${COLUMNS}`);
}

export async function recordPixKeyError(
  db: CommonQueryMethods,
  proposalId: string,
  reason: string,
): Promise<ProposalRow> {
  // A key registered meanwhile by a concurrent poll wins over this failure.
  const row = await db.maybeOne(sql.type(proposalRow)`
    UPDATE kyc_proposals SET pix_key_error = ${reason}, updated_at = now()
    WHERE id = ${proposalId} AND pix_key IS NULL RETURNING ${COLUMNS}`);
  return (
    row ??
    (await db.one(sql.type(proposalRow)`SELECT ${COLUMNS} FROM kyc_proposals WHERE id = ${proposalId}`))
  );
}
