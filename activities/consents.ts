// Consent lifecycle activities: the token's expiry and the mandate's expiry, each one transaction that
// a retry repeats harmlessly (a second run finds the row already moved).
import { sql } from 'slonik';
import { z } from 'zod';
import { expireConsent } from '../domain/consents/consents';
import { expireMandate } from '../domain/mandates/lifecycle';
import { findMandateById } from '../domain/mandates/mandates';
import type { DatabasePool } from '../runtime/database';
import type { MandateTimer } from '../contracts/consent-messages';

export type TokenExpiry = { outcome: 'expired' | 'missing' } | { outcome: 'consumed'; mandate: MandateTimer };
export type MandateExpiry =
  | { outcome: 'expired' | 'revoked' | 'closed' }
  | { outcome: 'moved'; revision: number; expiresInSeconds: number };

async function secondsLeft(db: DatabasePool, expiresAt: string): Promise<number> {
  const left = await db.oneFirst(sql.type(z.object({ left: z.number() }))`
    SELECT GREATEST(0, ceil(extract(epoch FROM (${expiresAt}::timestamptz - now()))))::int AS left`);
  return left;
}

export function consentActivities(db: DatabasePool) {
  return {
    async expireConsentToken(consentId: string): Promise<TokenExpiry> {
      const result = await expireConsent(db, consentId);
      if (result.outcome !== 'consumed') return { outcome: result.outcome };
      const mandate = await findMandateById(db, result.mandateId);
      if (!mandate) return { outcome: 'missing' };
      return {
        outcome: 'consumed',
        mandate: {
          mandateId: mandate.id,
          consumerId: mandate.consumer_id,
          revision: mandate.revision,
          expiresInSeconds: await secondsLeft(db, mandate.expires_at),
        },
      };
    },

    async expireMandateTimer(mandateId: string, revision: number): Promise<MandateExpiry> {
      const { expired } = await expireMandate(db, mandateId, revision);
      if (expired) return { outcome: 'expired' };
      const current = await findMandateById(db, mandateId);
      if (!current) return { outcome: 'closed' };
      if (current.status === 'revoked') return { outcome: 'revoked' };
      if (current.status === 'active' && current.revision > revision) {
        return {
          outcome: 'moved',
          revision: current.revision,
          expiresInSeconds: await secondsLeft(db, current.expires_at),
        };
      }
      return { outcome: 'closed' };
    },
  };
}
