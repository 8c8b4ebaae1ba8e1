// Consumers (titulars): create, read, list, patch, and mark verified. Every query names org and project.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabasePool } from '../../runtime/database';
import { recordEvent } from '../events/record';
import { notFound } from '../errors';
import { prefixedId } from '../ids';
import type { Tenant } from './tenant';

export const TAX_TYPES = ['PJ', 'MEI', 'ME', 'PF'] as const;
export type TaxType = (typeof TAX_TYPES)[number];

export const consumerRow = z.object({
  id: z.string(),
  org_id: z.string(),
  project_id: z.string(),
  display_name: z.string().nullable(),
  document: z.string().nullable(),
  document_source: z.string().nullable(),
  document_verified_at: z.string().nullable(),
  person_type: z.string().nullable(),
  tax_type: z.enum(TAX_TYPES).nullable(),
  status: z.enum(['unverified', 'verified']),
  metadata: z.record(z.unknown()),
  created_at: z.string(),
});
export type ConsumerRow = z.infer<typeof consumerRow>;

const COLUMNS = sql.fragment`id, org_id, project_id, display_name, document, document_source, document_verified_at,
  person_type, tax_type, status, metadata, created_at`;

export const newConsumerId = (): string => prefixedId('cns');

export async function insertConsumer(
  tx: CommonQueryMethods,
  tenant: Tenant,
  input: { displayName: string | null; metadata: Record<string, unknown> },
): Promise<ConsumerRow> {
  const row = await tx.one(sql.type(consumerRow)`
    INSERT INTO consumers (id, org_id, project_id, display_name, metadata)
    VALUES (${newConsumerId()}, ${tenant.orgId}, ${tenant.projectId}, ${input.displayName}, ${sql.jsonb(input.metadata as never)})
    RETURNING ${COLUMNS}`);
  await recordEvent(tx, tenant, 'consumer.created', { consumer_id: row.id, status: row.status });
  return row;
}

export async function createConsumer(
  db: DatabasePool,
  tenant: Tenant,
  input: { displayName: string | null; metadata: Record<string, unknown> },
): Promise<ConsumerRow> {
  return db.transaction((tx) => insertConsumer(tx, tenant, input));
}

export async function findConsumer(
  db: CommonQueryMethods,
  tenant: Tenant,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<ConsumerRow | null> {
  return db.maybeOne(sql.type(consumerRow)`
    SELECT ${COLUMNS} FROM consumers WHERE org_id = ${tenant.orgId} AND project_id = ${tenant.projectId} AND id = ${id}
    ${options.forUpdate ? sql.fragment`FOR UPDATE` : sql.fragment``}`);
}

export async function getConsumer(db: CommonQueryMethods, tenant: Tenant, id: string): Promise<ConsumerRow> {
  const row = await findConsumer(db, tenant, id);
  if (!row) throw notFound('Consumer');
  return row;
}

export async function listConsumers(
  db: CommonQueryMethods,
  tenant: Tenant,
  filter: { verified?: boolean; limit: number },
): Promise<ConsumerRow[]> {
  const status =
    filter.verified === undefined
      ? sql.fragment``
      : sql.fragment`AND status = ${filter.verified ? 'verified' : 'unverified'}`;
  const rows = await db.any(sql.type(consumerRow)`
    SELECT ${COLUMNS} FROM consumers
    WHERE org_id = ${tenant.orgId} AND project_id = ${tenant.projectId} ${status}
    ORDER BY created_at DESC, id DESC LIMIT ${filter.limit}`);
  return [...rows];
}

export interface ConsumerPatch {
  display_name?: string | null;
  metadata?: Record<string, unknown>;
  tax_type?: TaxType;
}

/** Metadata merges like Stripe's: a key set to null is removed, other keys are kept. */
export function mergeMetadata(
  current: Record<string, unknown>,
  patch: Record<string, unknown>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

export async function updateConsumer(
  db: DatabasePool,
  tenant: Tenant,
  id: string,
  patch: ConsumerPatch,
): Promise<ConsumerRow> {
  return db.transaction(async (tx) => {
    const current = await findConsumer(tx, tenant, id, { forUpdate: true });
    if (!current) throw notFound('Consumer');
    const displayName = patch.display_name === undefined ? current.display_name : patch.display_name;
    const metadata =
      patch.metadata === undefined ? current.metadata : mergeMetadata(current.metadata, patch.metadata);
    const taxType = patch.tax_type ?? current.tax_type;
    const row = await tx.one(sql.type(consumerRow)`
      UPDATE consumers SET display_name = ${displayName}, metadata = ${sql.jsonb(metadata as never)}, tax_type = ${taxType}
      WHERE org_id = ${tenant.orgId} AND project_id = ${tenant.projectId} AND id = ${id}
      RETURNING ${COLUMNS}`);
    await recordEvent(tx, tenant, 'consumer.updated', { consumer_id: id, fields: Object.keys(patch).sort() });
    return row;
  });
}

/**
 * Marks a consumer verified after a contact check or an approved KYC onboarding. When a partner account
 * attested a holder document, that document is recorded with its source; otherwise the document fields
 * are kept. The evidence names the contact verification or the KYC proposal that proved it.
 */
export async function markConsumerVerified(
  tx: CommonQueryMethods,
  tenant: Tenant,
  id: string,
  evidence: { document: string | null; documentSource: string } & (
    { verificationId: string } | { kycProposalId: string }
  ),
): Promise<ConsumerRow> {
  const current = await findConsumer(tx, tenant, id, { forUpdate: true });
  if (!current) throw notFound('Consumer');
  const personType =
    evidence.document === null ? current.person_type : evidence.document.length === 11 ? 'natural' : 'legal';
  const row = await tx.one(sql.type(consumerRow)`
    UPDATE consumers SET
      status = 'verified',
      document = COALESCE(${evidence.document}, document),
      document_source = CASE WHEN ${evidence.document}::text IS NULL THEN document_source ELSE ${evidence.documentSource} END,
      document_verified_at = CASE WHEN ${evidence.document}::text IS NULL THEN document_verified_at ELSE now() END,
      person_type = ${personType}
    WHERE org_id = ${tenant.orgId} AND project_id = ${tenant.projectId} AND id = ${id}
    RETURNING ${COLUMNS}`);
  if (current.status !== 'verified' || row.document !== current.document) {
    await recordEvent(tx, tenant, 'consumer.verified', {
      consumer_id: id,
      document_source: row.document_source,
      ...('verificationId' in evidence
        ? { contact_verification_id: evidence.verificationId }
        : { kyc_proposal_id: evidence.kycProposalId }),
    });
  }
  return row;
}
