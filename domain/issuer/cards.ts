// Issued cards and their mint flows, read inside the caller's organization and project. The id's prefix
// says which table holds it (`icrd_` a card, `imf_` a mint flow); anything else names nothing.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import { prefixedId } from '../ids';

export interface IssuerScope {
  orgId: string;
  projectId: string;
}

export const issuedCardRow = z.object({
  id: z.string(),
  issuer: z.string(),
  card_id: z.string(),
  last4: z.string(),
  network: z.string(),
  status: z.string(),
  created_at: z.string(),
});
export type IssuedCardRow = z.infer<typeof issuedCardRow>;

export const mintFlowRow = z.object({
  id: z.string(),
  issuer: z.string(),
  status: z.enum(['pending', 'minted', 'failed']),
  card_id: z.string().nullable(),
  failure_reason: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type MintFlowRow = z.infer<typeof mintFlowRow>;

export type IssuerRecord = { kind: 'card'; card: IssuedCardRow } | { kind: 'mint_flow'; flow: MintFlowRow };

/** The card or mint flow the id names in this organization and project, or null. */
export async function findIssuerRecord(
  db: CommonQueryMethods,
  scope: IssuerScope,
  id: string,
): Promise<IssuerRecord | null> {
  if (id.startsWith('icrd_')) {
    const card = await db.maybeOne(sql.type(issuedCardRow)`
      SELECT id, issuer, card_id, last4, network, status, created_at FROM issuer_cards
      WHERE id = ${id} AND org_id = ${scope.orgId} AND project_id = ${scope.projectId}`);
    return card ? { kind: 'card', card } : null;
  }
  if (id.startsWith('imf_')) {
    const flow = await db.maybeOne(sql.type(mintFlowRow)`
      SELECT id, issuer, status, card_id, failure_reason, created_at, updated_at FROM issuer_mint_flows
      WHERE id = ${id} AND org_id = ${scope.orgId} AND project_id = ${scope.projectId}`);
    return flow ? { kind: 'mint_flow', flow } : null;
  }
  return null;
}

/** Records a card an issuer issued to this project. */
export async function recordIssuedCard(
  db: CommonQueryMethods,
  scope: IssuerScope,
  card: { issuer: string; cardId: string; last4: string; network: string; status: string },
): Promise<IssuedCardRow> {
  return db.one(sql.type(issuedCardRow)`
    INSERT INTO issuer_cards (id, org_id, project_id, issuer, card_id, last4, network, status)
    VALUES (${prefixedId('icrd')}, ${scope.orgId}, ${scope.projectId}, ${card.issuer}, ${card.cardId},
      ${card.last4}, ${card.network}, ${card.status})
    RETURNING id, issuer, card_id, last4, network, status, created_at`);
}

/** Opens a mint flow at an issuer; it is `pending` until the issuer mints the card. */
export async function openMintFlow(
  db: CommonQueryMethods,
  scope: IssuerScope,
  issuer: string,
): Promise<MintFlowRow> {
  return db.one(sql.type(mintFlowRow)`
    INSERT INTO issuer_mint_flows (id, org_id, project_id, issuer)
    VALUES (${prefixedId('imf')}, ${scope.orgId}, ${scope.projectId}, ${issuer})
    RETURNING id, issuer, status, card_id, failure_reason, created_at, updated_at`);
}
