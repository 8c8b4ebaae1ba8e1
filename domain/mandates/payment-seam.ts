// The mandates side of the consumer-payments seam (domain/consumer-payments/seams.ts): verification of a
// presented mandate under a row lock, the settle's key-share lock on it, the signed document of a registered
// mandate, and the spend record.
// Bind it in domain/consumer-payments/wiring.ts as `mandates: mandatePaymentSeam(config.encryptionKeys)`.
import { sql } from 'slonik';
import type { KeyRing } from '../crypto/secret-box';
import { ApiError } from '../errors';
import type { MandateSeam, MandateTerms } from '../consumer-payments/seams';
import { findMandate } from './mandates';
import { recordMandateSpend } from './spends';
import { verifyPresentedMandate } from './verify';

export function mandatePaymentSeam(ring: KeyRing): MandateSeam {
  return {
    async verify(tx, scope, presented): Promise<MandateTerms> {
      const verified = await verifyPresentedMandate(tx, ring, scope, presented, { lock: true });
      return {
        mandateId: verified.mandateId,
        consumerId: verified.consumerId,
        agentId: verified.agentId,
        purpose: verified.purpose,
        currency: verified.currency,
        fundingRail: verified.rail,
        fundingSourceId: verified.fundingSourceId,
        capMinor: verified.capMinor,
        perTxCapMinor: verified.perTxCapMinor,
        merchantAllowlist: verified.merchantAllowlist,
        withdrawalAllowlist: verified.withdrawalAllowlist,
        periodicCap: verified.periodicCap,
        slots: verified.slots,
        expiresAt: verified.expiresAt,
        nonce: verified.document.nonce,
        scope: verified.document.scope,
        signature: presented.signature.toLowerCase(),
      };
    },

    async registered(tx, scope, mandateId): Promise<unknown> {
      const row = await findMandate(tx, scope, mandateId);
      if (!row) throw new ApiError(404, 'mandate_not_found', 'No such mandate in this project');
      return row.document;
    },

    async lockForSettle(tx, scope, mandateId): Promise<void> {
      await tx.query(sql.unsafe`
        SELECT 1 FROM mandates WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND id = ${mandateId} FOR KEY SHARE`);
    },

    async recordSpend(tx, scope, spend): Promise<void> {
      await recordMandateSpend(tx, scope, spend);
    },
  };
}
