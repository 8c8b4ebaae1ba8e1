// Consumer funding sources: written by a consent submit (a Pix consent or a partner account), the
// provider token sealed at rest. Read by mandates, the wallet roll-up and contact verification.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import { seal, type KeyRing } from '../crypto/secret-box';
import { recordEvent } from '../events/record';
import { prefixedId } from '../ids';
import type { Tenant } from './tenant';

export const FUNDING_RAILS = ['pix-consent', 'pix-partner'] as const;
export type FundingRail = (typeof FUNDING_RAILS)[number];

export const fundingSourceRow = z.object({
  id: z.string(),
  consumer_id: z.string(),
  rail: z.enum(FUNDING_RAILS),
  currency: z.string(),
  status: z.enum(['active', 'disabled']),
  display_label: z.string().nullable(),
  provider_token_hint: z.string().nullable(),
  holder_document: z.string().nullable(),
  consent_id: z.string(),
  created_at: z.string(),
});
export type FundingSourceRow = z.infer<typeof fundingSourceRow>;

const COLUMNS = sql.fragment`id, consumer_id, rail, currency, status, display_label, provider_token_hint, holder_document, consent_id, created_at`;

/** What may be shown of a provider token after it is stored: its last four characters. */
export function tokenHint(token: string): string {
  return token.length <= 8 ? '…' : `…${token.slice(-4)}`;
}

export async function insertFundingSource(
  tx: CommonQueryMethods,
  ring: KeyRing,
  tenant: Tenant,
  input: {
    consumerId: string;
    consentId: string;
    rail: FundingRail;
    currency: string;
    displayLabel: string | null;
    providerToken: string | null;
    holderDocument: string | null;
  },
): Promise<FundingSourceRow> {
  const id = prefixedId('cfs');
  // The row id is the associated data, so a sealed token copied onto another row does not open.
  const sealed =
    input.providerToken === null ? null : seal(ring, input.providerToken, `funding-source:${id}`);
  const row = await tx.one(sql.type(fundingSourceRow)`
    INSERT INTO consumer_funding_sources
      (id, org_id, project_id, consumer_id, rail, currency, display_label, provider_token_sealed, provider_token_hint, holder_document, consent_id)
    VALUES (${id}, ${tenant.orgId}, ${tenant.projectId}, ${input.consumerId}, ${input.rail}, ${input.currency}, ${input.displayLabel},
            ${sealed}, ${input.providerToken === null ? null : tokenHint(input.providerToken)}, ${input.holderDocument}, ${input.consentId})
    RETURNING ${COLUMNS}`);
  await recordEvent(tx, tenant, 'consumer.funding_source.created', {
    consumer_id: input.consumerId,
    funding_source_id: id,
    rail: input.rail,
  });
  return row;
}

/** The consumer's newest active partner account, or null: contact verification requires one. */
export async function findActivePartnerAccount(
  db: CommonQueryMethods,
  tenant: Tenant,
  consumerId: string,
): Promise<FundingSourceRow | null> {
  return db.maybeOne(sql.type(fundingSourceRow)`
    SELECT ${COLUMNS} FROM consumer_funding_sources
    WHERE org_id = ${tenant.orgId} AND project_id = ${tenant.projectId} AND consumer_id = ${consumerId}
      AND rail = 'pix-partner' AND status = 'active'
    ORDER BY created_at DESC, id DESC LIMIT 1`);
}
