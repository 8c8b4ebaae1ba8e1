// Mandate rows: insert at signing, read, list per consumer, and the status writes of the lifecycle.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import type { Tenant } from '../consumers/tenant';
import type { MandateDocument } from './document';

export const mandateRow = z.object({
  id: z.string(),
  org_id: z.string(),
  project_id: z.string(),
  environment: z.enum(['live', 'test']),
  consumer_id: z.string(),
  funding_source_id: z.string(),
  consent_id: z.string(),
  agent_id: z.string(),
  status: z.enum(['active', 'revoked', 'expired']),
  revision: z.number(),
  purpose: z.string(),
  currency: z.string(),
  cap_minor: z.bigint(),
  per_tx_cap_minor: z.bigint(),
  // Written only by this module from a built document.
  document: z.custom<MandateDocument>((value) => typeof value === 'object' && value !== null),
  canonical: z.string(),
  signature: z.string(),
  hmac_secret_version: z.number(),
  signed_at: z.string(),
  expires_at: z.string(),
  amended_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  expired_at: z.string().nullable(),
  // Read-time: the expiry has passed even if the lifecycle has not recorded it yet.
  lapsed: z.boolean(),
});
export type MandateRow = z.infer<typeof mandateRow>;

const COLUMNS = sql.fragment`id, org_id, project_id, environment, consumer_id, funding_source_id, consent_id, agent_id, status, revision, purpose,
  currency, cap_minor, per_tx_cap_minor, document, canonical, signature, hmac_secret_version, signed_at, expires_at, amended_at, revoked_at,
  expired_at, expires_at <= now() AS lapsed`;

export function mandateTenant(row: Pick<MandateRow, 'org_id' | 'project_id' | 'environment'>): Tenant {
  return { orgId: row.org_id, projectId: row.project_id, environment: row.environment };
}

export async function insertMandate(
  tx: CommonQueryMethods,
  tenant: Tenant,
  input: {
    document: MandateDocument;
    canonical: string;
    signature: string;
    secretVersion: number;
    consentId: string;
  },
): Promise<MandateRow> {
  const doc = input.document;
  const row = await tx.one(sql.type(mandateRow)`
    INSERT INTO mandates (id, org_id, project_id, environment, consumer_id, funding_source_id, consent_id, agent_id, purpose, currency,
      cap_minor, per_tx_cap_minor, document, canonical, signature, hmac_secret_version, signed_at, expires_at)
    VALUES (${doc.id}, ${tenant.orgId}, ${tenant.projectId}, ${tenant.environment}, ${doc.consumer_id}, ${doc.funding_source_id}, ${input.consentId},
      ${doc.agent_id}, ${doc.purpose}, ${doc.currency}, ${BigInt(doc.cap_minor)}, ${BigInt(doc.per_tx_cap_minor)}, ${sql.jsonb(doc as never)},
      ${input.canonical}, ${input.signature}, ${input.secretVersion}, ${doc.issued_at}, ${doc.expires_at})
    RETURNING ${COLUMNS}`);
  return row;
}

export type LockMode = 'none' | 'wait' | 'nowait';

const lockClause = (mode: LockMode) =>
  mode === 'wait'
    ? sql.fragment`FOR UPDATE`
    : mode === 'nowait'
      ? sql.fragment`FOR UPDATE NOWAIT`
      : sql.fragment``;

export async function findMandate(
  db: CommonQueryMethods,
  tenant: Pick<Tenant, 'orgId' | 'projectId'>,
  id: string,
  lock: LockMode = 'none',
): Promise<MandateRow | null> {
  const row = await db.maybeOne(sql.type(mandateRow)`
    SELECT ${COLUMNS} FROM mandates WHERE org_id = ${tenant.orgId} AND project_id = ${tenant.projectId} AND id = ${id} ${lockClause(lock)}`);
  return row;
}

/** For the lifecycle worker, which knows the mandate by id from its own workflow state. */
export async function findMandateById(
  db: CommonQueryMethods,
  id: string,
  lock: LockMode = 'none',
): Promise<MandateRow | null> {
  const row = await db.maybeOne(
    sql.type(mandateRow)`SELECT ${COLUMNS} FROM mandates WHERE id = ${id} ${lockClause(lock)}`,
  );
  return row;
}

export async function listConsumerMandates(
  db: CommonQueryMethods,
  tenant: Tenant,
  consumerId: string,
  status?: string,
): Promise<MandateRow[]> {
  const filter = status ? sql.fragment`AND status = ${status}` : sql.fragment``;
  const rows = await db.any(sql.type(mandateRow)`
    SELECT ${COLUMNS} FROM mandates WHERE org_id = ${tenant.orgId} AND project_id = ${tenant.projectId} AND consumer_id = ${consumerId} ${filter}
    ORDER BY signed_at DESC, id DESC`);
  return [...rows];
}

export async function writeRevocation(tx: CommonQueryMethods, id: string): Promise<MandateRow> {
  const row = await tx.one(sql.type(mandateRow)`
    UPDATE mandates SET status = 'revoked', revoked_at = now() WHERE id = ${id} AND status = 'active' RETURNING ${COLUMNS}`);
  return row;
}

export async function writeAmendment(
  tx: CommonQueryMethods,
  id: string,
  input: { document: MandateDocument; canonical: string; signature: string; secretVersion: number },
): Promise<MandateRow> {
  const doc = input.document;
  const row = await tx.one(sql.type(mandateRow)`
    UPDATE mandates SET revision = ${doc.revision}, cap_minor = ${BigInt(doc.cap_minor)}, per_tx_cap_minor = ${BigInt(doc.per_tx_cap_minor)},
      document = ${sql.jsonb(doc as never)}, canonical = ${input.canonical}, signature = ${input.signature},
      hmac_secret_version = ${input.secretVersion}, expires_at = ${doc.expires_at}, amended_at = now()
    WHERE id = ${id} AND status = 'active' RETURNING ${COLUMNS}`);
  return row;
}

/** The lifecycle's expiry: only the revision its timer was set for, so an amendment's new expiry wins. */
export async function writeExpiry(
  tx: CommonQueryMethods,
  id: string,
  revision: number,
): Promise<MandateRow | null> {
  const row = await tx.maybeOne(sql.type(mandateRow)`
    UPDATE mandates SET status = 'expired', expired_at = now() WHERE id = ${id} AND status = 'active' AND revision = ${revision}
    RETURNING ${COLUMNS}`);
  return row;
}
