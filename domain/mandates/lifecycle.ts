// Revocation, amendment and expiry of a mandate, each one transaction: the status write, the consent
// log row and the outbox event together. Concurrent transitions on one mandate: exactly one wins; the
// other finds the row locked and is told `transition_conflict`, or sees the winner's result.
import type { CommonQueryMethods, DatabasePool } from '../../runtime/database';
import type { KeyRing } from '../crypto/secret-box';
import { recordEvent } from '../events/record';
import { ApiError } from '../errors';
import type { Tenant } from '../consumers/tenant';
import { insertConsentRecord, type ConsentRecordRow } from './consent-records';
import { compactDocument } from './document';
import {
  findMandate,
  findMandateById,
  mandateTenant,
  writeAmendment,
  writeExpiry,
  writeRevocation,
  type MandateRow,
} from './mandates';
import { currentSigningSecret } from './secrets';
import { signDocument } from './signature';
import { spentByMandate } from './spends';
import { planAmendment, transitionRefusal, type AmendmentPatch, type Changes } from './transitions';

const LOCK_NOT_AVAILABLE = '55P03';

/** Locks the mandate without waiting: a second transition in flight is a conflict, not a queue. */
async function lockMandate(tx: CommonQueryMethods, tenant: Tenant, id: string): Promise<MandateRow> {
  let row: MandateRow | null;
  try {
    row = await findMandate(tx, tenant, id, 'nowait');
  } catch (error) {
    if ((error as { code?: string }).code === LOCK_NOT_AVAILABLE) {
      throw new ApiError(
        409,
        'transition_conflict',
        'Another change to this mandate is in progress; read it again and retry if still needed',
        { mandate_id: id },
      );
    }
    throw error;
  }
  if (!row) throw new ApiError(404, 'mandate_not_found', 'No such mandate in this project');
  return row;
}

export interface TransitionContext {
  actor: string;
  ipAddress: string | null;
  reason?: string;
}

export interface TransitionResult {
  mandate: MandateRow;
  record: ConsentRecordRow;
  changes?: Changes;
}

export async function revokeMandate(
  db: DatabasePool,
  ring: KeyRing,
  tenant: Tenant,
  id: string,
  context: TransitionContext,
): Promise<TransitionResult> {
  return db.transaction(async (tx) => {
    const current = await lockMandate(tx, tenant, id);
    const refusal = transitionRefusal(current.status, current.lapsed, 'revoke');
    if (refusal) throw refusal;
    const mandate = await writeRevocation(tx, id);
    const record = await insertConsentRecord(tx, ring, tenant, {
      consumerId: mandate.consumer_id,
      mandateId: mandate.id,
      kind: 'revoke',
      agentId: mandate.agent_id,
      fundingSourceId: mandate.funding_source_id,
      purpose: null,
      currency: null,
      capMinor: null,
      perTxCapMinor: null,
      expiresAt: null,
      ipAddress: context.ipAddress,
      metadata: {
        action: 'revoke',
        from: 'active',
        to: 'revoked',
        actor: context.actor,
        ...(context.reason ? { reason: context.reason } : {}),
      },
      signedAt: new Date(),
    });
    await recordEvent(tx, tenant, 'mandate.revoked', {
      mandate_id: mandate.id,
      consumer_id: mandate.consumer_id,
      consent_record_id: record.id,
      reason: context.reason ?? null,
    });
    return { mandate, record };
  });
}

export async function amendMandate(
  db: DatabasePool,
  ring: KeyRing,
  tenant: Tenant,
  id: string,
  patch: AmendmentPatch,
  context: TransitionContext,
): Promise<TransitionResult> {
  return db.transaction(async (tx) => {
    const current = await lockMandate(tx, tenant, id);
    const refusal = transitionRefusal(current.status, current.lapsed, 'amend');
    if (refusal) throw refusal;
    const spent = (await spentByMandate(tx, tenant, [id])).get(id)?.get(current.currency) ?? 0n;
    const plan = planAmendment(current.document, patch, { spentMinor: spent, now: new Date() });
    const secret = await currentSigningSecret(tx, ring);
    const document = compactDocument(plan.document);
    const { canonical, signature } = signDocument(secret.secret, document);
    const mandate = await writeAmendment(tx, id, {
      document,
      canonical,
      signature,
      secretVersion: secret.version,
    });
    const record = await insertConsentRecord(tx, ring, tenant, {
      consumerId: mandate.consumer_id,
      mandateId: mandate.id,
      kind: 'amend',
      agentId: mandate.agent_id,
      fundingSourceId: mandate.funding_source_id,
      purpose: null,
      currency: null,
      capMinor: null,
      perTxCapMinor: null,
      expiresAt: mandate.expires_at,
      ipAddress: context.ipAddress,
      metadata: {
        action: 'amend',
        from: 'active',
        to: 'active',
        actor: context.actor,
        revision: mandate.revision,
        changes: plan.changes,
        ...(context.reason ? { reason: context.reason } : {}),
      },
      signedAt: new Date(),
    });
    await recordEvent(tx, tenant, 'mandate.amended', {
      mandate_id: mandate.id,
      consumer_id: mandate.consumer_id,
      consent_record_id: record.id,
      revision: mandate.revision,
      changes: plan.changes,
    });
    return { mandate, record, changes: plan.changes };
  });
}

/**
 * The lifecycle's expiry timer fired for this revision: mark the mandate expired (once) and record the
 * event. A later amendment or a revocation makes this a no-op.
 */
export async function expireMandate(
  db: DatabasePool,
  id: string,
  revision: number,
): Promise<{ expired: boolean }> {
  return db.transaction(async (tx) => {
    const current = await findMandateById(tx, id, 'wait');
    if (!current) return { expired: false };
    const row = await writeExpiry(tx, id, revision);
    if (!row) return { expired: false };
    await recordEvent(tx, mandateTenant(row), 'mandate.expired', {
      mandate_id: row.id,
      consumer_id: row.consumer_id,
      expires_at: row.expires_at,
    });
    return { expired: true };
  });
}
