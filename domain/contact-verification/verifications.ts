// Contact verification rows: the reservation (ceiling checked under a per-contact lock), completion
// with supersession of the contact's older codes, removal of a failed send, attempts, and verification.
import { randomUUID } from 'node:crypto';
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import { recordEvent } from '../events/record';
import { ApiError } from '../errors';
import { findActivePartnerAccount } from '../consumers/funding-sources';
import type { Tenant } from '../consumers/tenant';
import {
  CODE_LENGTH,
  CODE_TTL_SECONDS,
  MAX_ATTEMPTS,
  MAX_SENDS_PER_WINDOW,
  SEND_WINDOW_SECONDS,
  type Channel,
  type OtpProviderName,
} from './policy';

export const verificationRow = z.object({
  id: z.string(),
  org_id: z.string(),
  project_id: z.string(),
  consumer_id: z.string(),
  channel: z.enum(['email', 'phone']),
  target_hash: z.string(),
  target_masked: z.string(),
  provider: z.enum(['dev', 'prelude', 'resend']),
  locale: z.string(),
  status: z.enum(['sending', 'sent', 'verified', 'superseded']),
  code_length: z.number(),
  code_key_version: z.number(),
  code_hash: z.string().nullable(),
  attempts_used: z.number(),
  max_attempts: z.number(),
  expires_at: z.string(),
  verified_at: z.string().nullable(),
  created_at: z.string(),
  lapsed: z.boolean(),
});
export type VerificationRow = z.infer<typeof verificationRow>;

const COLUMNS = sql.fragment`id, org_id, project_id, consumer_id, channel, target_hash, target_masked, provider, locale, status, code_length,
  code_key_version, code_hash, attempts_used, max_attempts, expires_at, verified_at, created_at, expires_at <= now() AS lapsed`;

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const noPartnerAccount = (): ApiError =>
  new ApiError(
    422,
    'no_partner_account',
    'The consumer has no active pix-partner funding source in this organization',
  );

/**
 * Reserves a verification row in `sending`: the consumer must hold an active partner account, and the
 * contact must be under its hourly ceiling. A per-contact advisory lock makes the count and the insert
 * one step, so concurrent starts cannot both slip under the ceiling.
 */
export async function reserveVerification(
  db: CommonQueryMethods,
  tenant: Tenant,
  input: {
    consumerId: string;
    channel: Channel;
    targetHash: string;
    targetMasked: string;
    provider: OtpProviderName;
    locale: string;
    codeKeyVersion: number;
  },
): Promise<VerificationRow> {
  return db.transaction(async (tx) => {
    const partner = await findActivePartnerAccount(tx, tenant, input.consumerId);
    if (!partner) throw noPartnerAccount();
    await tx.query(
      sql.unsafe`SELECT pg_advisory_xact_lock(hashtextextended(${`contact:${tenant.orgId}:${tenant.projectId}:${input.targetHash}`}, 0))`,
    );
    const recent = await tx.one(sql.type(z.object({ sends: z.number(), oldest: z.string().nullable() }))`
      SELECT count(*)::int AS sends, min(created_at) AS oldest FROM contact_verifications
      WHERE org_id = ${tenant.orgId} AND project_id = ${tenant.projectId} AND target_hash = ${input.targetHash}
        AND created_at > now() - make_interval(secs => ${SEND_WINDOW_SECONDS})`);
    if (recent.sends >= MAX_SENDS_PER_WINDOW) {
      const retryAfter = recent.oldest
        ? Math.max(1, Math.ceil((Date.parse(recent.oldest) + SEND_WINDOW_SECONDS * 1000 - Date.now()) / 1000))
        : SEND_WINDOW_SECONDS;
      throw new ApiError(
        429,
        'too_many_requests',
        'This contact was sent too many codes in the last hour',
        { window_seconds: SEND_WINDOW_SECONDS, max_sends: MAX_SENDS_PER_WINDOW },
        { 'Retry-After': String(retryAfter) },
      );
    }
    return tx.one(sql.type(verificationRow)`
      INSERT INTO contact_verifications (id, org_id, project_id, consumer_id, channel, target_hash, target_masked, provider, locale,
        code_length, code_key_version, max_attempts, expires_at)
      VALUES (${randomUUID()}, ${tenant.orgId}, ${tenant.projectId}, ${input.consumerId}, ${input.channel}, ${input.targetHash}, ${input.targetMasked},
        ${input.provider}, ${input.locale}, ${CODE_LENGTH}, ${input.codeKeyVersion}, ${MAX_ATTEMPTS}, now() + make_interval(secs => ${CODE_TTL_SECONDS}))
      RETURNING ${COLUMNS}`);
  });
}

export async function findVerificationById(
  db: CommonQueryMethods,
  id: string,
): Promise<VerificationRow | null> {
  return db.maybeOne(
    sql.type(verificationRow)`SELECT ${COLUMNS} FROM contact_verifications WHERE id = ${id}`,
  );
}

export async function findVerification(
  db: CommonQueryMethods,
  tenant: Tenant,
  consumerId: string,
  id: string,
  lock = false,
): Promise<VerificationRow | null> {
  if (!UUID_PATTERN.test(id)) return null;
  return db.maybeOne(sql.type(verificationRow)`
    SELECT ${COLUMNS} FROM contact_verifications
    WHERE org_id = ${tenant.orgId} AND project_id = ${tenant.projectId} AND consumer_id = ${consumerId} AND id = ${id}
    ${lock ? sql.fragment`FOR UPDATE` : sql.fragment``}`);
}

/** Stores the hash of the code about to be sent; a retried send derives the same code, so this is idempotent. */
export async function storeCodeHash(db: CommonQueryMethods, id: string, codeHash: string): Promise<void> {
  await db.query(
    sql.unsafe`UPDATE contact_verifications SET code_hash = ${codeHash} WHERE id = ${id} AND status = 'sending'`,
  );
}

/** The code reached the sender: the row opens for checks and closes the contact's earlier open codes. */
export async function completeVerification(
  db: CommonQueryMethods,
  id: string,
  providerReference: string | null,
): Promise<'completed' | 'already' | 'missing'> {
  return db.transaction(async (tx) => {
    // A short lock wait: a stuck row lock should fail this step (the caller then reports the code as sent
    // but unusable) rather than hold the consumer's request open.
    await tx.query(sql.unsafe`SET LOCAL lock_timeout = '2s'`);
    const row = await tx.maybeOne(
      sql.type(verificationRow)`SELECT ${COLUMNS} FROM contact_verifications WHERE id = ${id} FOR UPDATE`,
    );
    if (!row) return 'missing';
    if (row.status !== 'sending') return 'already';
    await tx.query(sql.unsafe`
      UPDATE contact_verifications SET status = 'superseded', superseded_at = now(), expires_at = LEAST(expires_at, now())
      WHERE org_id = ${row.org_id} AND project_id = ${row.project_id} AND consumer_id = ${row.consumer_id}
        AND target_hash = ${row.target_hash} AND status = 'sent' AND id <> ${id}`);
    await tx.query(sql.unsafe`
      UPDATE contact_verifications SET status = 'sent', sent_at = now(), provider_reference = ${providerReference} WHERE id = ${id}`);
    const tenant: Tenant = {
      orgId: row.org_id,
      projectId: row.project_id,
      environment: await projectEnvironment(tx, row.project_id),
    };
    await recordEvent(tx, tenant, 'contact_verification.sent', {
      verification_id: id,
      consumer_id: row.consumer_id,
      channel: row.channel,
      provider: row.provider,
    });
    return 'completed';
  });
}

async function projectEnvironment(db: CommonQueryMethods, projectId: string): Promise<'live' | 'test'> {
  return db.oneFirst(
    sql.type(
      z.object({ environment: z.enum(['live', 'test']) }),
    )`SELECT environment FROM projects WHERE id = ${projectId}`,
  );
}

/** A send that failed before the code left: the row goes, so it neither counts nor blocks a retry. */
export async function discardVerification(db: CommonQueryMethods, id: string): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM contact_verifications WHERE id = ${id} AND status = 'sending'`);
}

export async function spendAttempt(db: CommonQueryMethods, id: string): Promise<number> {
  const left = await db.maybeOneFirst(sql.type(z.object({ left: z.number() }))`
    UPDATE contact_verifications SET attempts_used = attempts_used + 1 WHERE id = ${id} AND attempts_used < max_attempts
    RETURNING max_attempts - attempts_used AS left`);
  return left ?? 0;
}

export async function markVerified(
  db: CommonQueryMethods,
  tenant: Tenant,
  row: VerificationRow,
): Promise<VerificationRow> {
  const verified = await db.one(sql.type(verificationRow)`
    UPDATE contact_verifications SET status = 'verified', verified_at = now() WHERE id = ${row.id} RETURNING ${COLUMNS}`);
  await recordEvent(db, tenant, 'contact_verification.verified', {
    verification_id: row.id,
    consumer_id: row.consumer_id,
    channel: row.channel,
  });
  return verified;
}
