// Issued cards and their mint flows, read inside the caller's organization and project. The id's prefix
// says which table holds it (`icrd_` a card, `imf_` a mint flow); anything else names nothing.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabasePool } from '../../runtime/database';
import { recordEvent, type EventScope } from '../events/record';
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

/** An agent card as the gateway keeps it: bound to a wallet, with its controls; never its number or CVC. */
export const agentCardRow = z.object({
  id: z.string(),
  org_id: z.string(),
  project_id: z.string(),
  environment: z.enum(['live', 'test']),
  issuer: z.string(),
  card_id: z.string(),
  last4: z.string(),
  network: z.string(),
  exp_month: z.number().nullable(),
  exp_year: z.number().nullable(),
  status: z.string(),
  wallet_id: z.string(),
  mandate_id: z.string().nullable(),
  currency: z.string(),
  controls: z.record(z.unknown()),
  expires_at: z.string().nullable(),
  metadata: z.record(z.unknown()),
  mint_flow_id: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type AgentCardRow = z.infer<typeof agentCardRow>;

const AGENT_CARD_COLUMNS = sql.fragment`c.id, c.org_id, c.project_id, c.environment, c.issuer, c.card_id, c.last4,
  c.network, c.exp_month, c.exp_year, c.status, c.wallet_id, c.mandate_id, c.currency, c.controls, c.expires_at,
  c.metadata, (SELECT f.id FROM issuer_mint_flows f WHERE f.card_id = c.id) AS mint_flow_id, c.created_at, c.updated_at`;

/** A bound card of this project, or null (cards without a wallet are the deprecated read's alone). */
export async function findAgentCard(
  db: CommonQueryMethods,
  scope: IssuerScope,
  id: string,
  lock = false,
): Promise<AgentCardRow | null> {
  return db.maybeOne(sql.type(agentCardRow)`
    SELECT ${AGENT_CARD_COLUMNS} FROM issuer_cards c
    WHERE c.id = ${id} AND c.org_id = ${scope.orgId} AND c.project_id = ${scope.projectId} AND c.wallet_id IS NOT NULL
    ${lock ? sql.fragment`FOR UPDATE` : sql.fragment``}`);
}

/** The bound card the issuer's own card id names, locked for its authorization. */
export async function lockCardOfIssuer(
  db: CommonQueryMethods,
  issuer: string,
  issuerCardId: string,
): Promise<AgentCardRow | null> {
  return db.maybeOne(sql.type(agentCardRow)`
    SELECT ${AGENT_CARD_COLUMNS} FROM issuer_cards c
    WHERE c.issuer = ${issuer} AND c.card_id = ${issuerCardId} AND c.wallet_id IS NOT NULL FOR UPDATE`);
}

export async function listAgentCards(
  db: CommonQueryMethods,
  scope: IssuerScope,
  filter: { walletId?: string; limit: number; before?: string },
): Promise<AgentCardRow[]> {
  const rows = await db.any(sql.type(agentCardRow)`
    SELECT ${AGENT_CARD_COLUMNS} FROM issuer_cards c
    WHERE c.org_id = ${scope.orgId} AND c.project_id = ${scope.projectId} AND c.wallet_id IS NOT NULL
      ${filter.walletId ? sql.fragment`AND c.wallet_id = ${filter.walletId}` : sql.fragment``}
      ${filter.before ? sql.fragment`AND c.id < ${filter.before}` : sql.fragment``}
    ORDER BY c.id DESC LIMIT ${filter.limit}`);
  return [...rows];
}

/** Sets a bound card's status with its `card.updated` event; a closed card never moves again (null). */
export async function setAgentCardStatus(
  db: DatabasePool,
  scope: EventScope,
  id: string,
  status: 'active' | 'frozen' | 'closed',
): Promise<AgentCardRow | null> {
  return db.transaction(async (tx) => {
    const moved = await tx.maybeOne(sql.type(z.object({ id: z.string(), wallet_id: z.string() }))`
      UPDATE issuer_cards SET status = ${status}, updated_at = now()
      WHERE id = ${id} AND org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND wallet_id IS NOT NULL
        AND status <> 'closed' RETURNING id, wallet_id`);
    if (!moved) return null;
    await recordEvent(tx, scope, 'card.updated', { card_id: id, wallet_id: moved.wallet_id, status });
    return findAgentCard(tx, scope, id);
  });
}
