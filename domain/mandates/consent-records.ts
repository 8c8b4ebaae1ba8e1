// The append-only consent log: `grant` rows written with the mandate, `revoke` and `amend` rows by the
// lifecycle. Each row is signed over its canonical form under the current secret version, which it
// records, so the log stays verifiable across rotations.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import type { KeyRing } from '../crypto/secret-box';
import { notFound } from '../errors';
import { sortableId } from '../ids';
import type { Tenant } from '../consumers/tenant';
import { canonicalize } from '../canonical-json';
import { currentSigningSecret, signingSecret, type SigningSecret } from './secrets';
import { signCanonical, signatureMatches } from './signature';

export const consentRecordRow = z.object({
  id: z.string(),
  org_id: z.string(),
  project_id: z.string(),
  consumer_id: z.string(),
  mandate_id: z.string().nullable(),
  kind: z.enum(['grant', 'revoke', 'amend']),
  agent_id: z.string().nullable(),
  funding_source_id: z.string().nullable(),
  purpose: z.string().nullable(),
  currency: z.string().nullable(),
  cap_minor: z.bigint().nullable(),
  per_tx_cap_minor: z.bigint().nullable(),
  expires_at: z.string().nullable(),
  hmac_secret_version: z.number(),
  signature: z.string(),
  ip_address: z.string().nullable(),
  metadata: z.record(z.unknown()),
  signed_at: z.string(),
});
export type ConsentRecordRow = z.infer<typeof consentRecordRow>;

const COLUMNS = sql.fragment`id, org_id, project_id, consumer_id, mandate_id, kind, agent_id, funding_source_id, purpose, currency,
  cap_minor, per_tx_cap_minor, expires_at, hmac_secret_version, signature, host(ip_address) AS ip_address, metadata, signed_at`;

export interface ConsentRecordInput {
  consumerId: string;
  mandateId: string;
  kind: 'grant' | 'revoke' | 'amend';
  agentId: string | null;
  fundingSourceId: string | null;
  purpose: string | null;
  currency: string | null;
  capMinor: bigint | null;
  perTxCapMinor: bigint | null;
  expiresAt: string | null;
  ipAddress: string | null;
  metadata: Record<string, unknown>;
  signedAt: Date;
}

/** The signed form of a row: every column but the signature and the version that signs it. */
export function recordPayload(
  row: Omit<ConsentRecordRow, 'signature' | 'hmac_secret_version'>,
): Record<string, unknown> {
  return {
    id: row.id,
    org_id: row.org_id,
    project_id: row.project_id,
    consumer_id: row.consumer_id,
    mandate_id: row.mandate_id,
    kind: row.kind,
    agent_id: row.agent_id,
    funding_source_id: row.funding_source_id,
    purpose: row.purpose,
    currency: row.currency,
    cap_minor: row.cap_minor === null ? null : row.cap_minor.toString(),
    per_tx_cap_minor: row.per_tx_cap_minor === null ? null : row.per_tx_cap_minor.toString(),
    expires_at: row.expires_at,
    ip_address: row.ip_address,
    metadata: row.metadata,
    signed_at: row.signed_at,
  };
}

const OCTET = '(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const CANONICAL_IPV4 = new RegExp(`^${OCTET}(\\.${OCTET}){3}$`);

/** The address as PostgreSQL will print it back (host(inet)), so the signed text equals the stored one. */
async function normalizedIp(tx: CommonQueryMethods, ip: string | null): Promise<string | null> {
  if (ip === null) return null;
  const candidate = /^::ffff:/i.test(ip) && CANONICAL_IPV4.test(ip.slice(7)) ? ip.slice(7) : ip;
  if (CANONICAL_IPV4.test(candidate)) return candidate; // already in the form host(inet) prints
  return tx.oneFirst(sql.type(z.object({ host: z.string() }))`SELECT host(${candidate}::inet) AS host`);
}

export async function insertConsentRecord(
  tx: CommonQueryMethods,
  ring: KeyRing,
  tenant: Tenant,
  input: ConsentRecordInput,
  signingWith?: SigningSecret,
): Promise<ConsentRecordRow> {
  const secret = signingWith ?? (await currentSigningSecret(tx, ring));
  const ipAddress = await normalizedIp(tx, input.ipAddress);
  const unsigned = {
    id: sortableId('ccsnt'),
    org_id: tenant.orgId,
    project_id: tenant.projectId,
    consumer_id: input.consumerId,
    mandate_id: input.mandateId,
    kind: input.kind,
    agent_id: input.agentId,
    funding_source_id: input.fundingSourceId,
    purpose: input.purpose,
    currency: input.currency,
    cap_minor: input.capMinor,
    per_tx_cap_minor: input.perTxCapMinor,
    expires_at: input.expiresAt,
    ip_address: ipAddress,
    metadata: input.metadata,
    signed_at: input.signedAt.toISOString(),
  };
  const signature = signCanonical(secret.secret, canonicalize(recordPayload(unsigned)));
  return tx.one(sql.type(consentRecordRow)`
    INSERT INTO consent_records (id, org_id, project_id, consumer_id, mandate_id, kind, agent_id, funding_source_id, purpose, currency,
      cap_minor, per_tx_cap_minor, expires_at, hmac_secret_version, signature, ip_address, metadata, signed_at)
    VALUES (${unsigned.id}, ${tenant.orgId}, ${tenant.projectId}, ${input.consumerId}, ${input.mandateId}, ${input.kind}, ${input.agentId},
      ${input.fundingSourceId}, ${input.purpose}, ${input.currency}, ${input.capMinor}, ${input.perTxCapMinor}, ${input.expiresAt},
      ${secret.version}, ${signature}, ${ipAddress}, ${sql.jsonb(input.metadata as never)}, ${unsigned.signed_at})
    RETURNING ${COLUMNS}`);
}

/**
 * One row by id anywhere in the caller's organization, as the spec scopes this read, but only among the
 * projects of the caller's environment: a test key never reads a live consumer's consent.
 */
export async function getConsentRecord(
  db: CommonQueryMethods,
  tenant: Tenant,
  id: string,
): Promise<ConsentRecordRow> {
  const row = await db.maybeOne(sql.type(consentRecordRow)`
    SELECT ${COLUMNS} FROM consent_records
    WHERE org_id = ${tenant.orgId} AND id = ${id}
      AND project_id IN (SELECT p.id FROM projects p WHERE p.org_id = ${tenant.orgId} AND p.environment = ${tenant.environment})`);
  if (!row) throw notFound('Consent record');
  return row;
}

export async function listConsentRecordsForMandate(
  db: CommonQueryMethods,
  tenant: Tenant,
  mandateId: string,
): Promise<ConsentRecordRow[]> {
  const rows = await db.any(sql.type(consentRecordRow)`
    SELECT ${COLUMNS} FROM consent_records WHERE org_id = ${tenant.orgId} AND project_id = ${tenant.projectId} AND mandate_id = ${mandateId}
    ORDER BY signed_at, id`);
  return [...rows];
}

/** True when the row's signature still verifies under the secret version it records. */
export async function consentRecordVerifies(
  db: CommonQueryMethods,
  ring: KeyRing,
  row: ConsentRecordRow,
): Promise<boolean> {
  const secret = await signingSecret(db, ring, row.hmac_secret_version);
  if (!secret) return false;
  return signatureMatches(secret.secret, canonicalize(recordPayload(row)), row.signature);
}
