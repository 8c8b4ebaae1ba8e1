// Mint flows (`imf_`): the step-by-step creation of an agent card, readable while it runs. The flow holds
// the card asked for; each step names the step it leaves, so a retried step or a second run changes nothing.
// The last step writes the card and its `card.created` event in one transaction.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabasePool } from '../../runtime/database';
import { recordEvent } from '../events/record';
import { sortableId } from '../ids';
import type { Environment } from '../tenancy/api-key-format';
import { MINT_STEPS } from '../../schema/http/cards';
import type { IssuerScope } from './cards';

export type MintStep = (typeof MINT_STEPS)[number];

/**
 * What the caller asked for, as the create route's schema validated it; the flow's row holds it as JSON.
 * Controls and metadata pass through to the card as given.
 */
const cardRequest = z.object({
  wallet_id: z.string(),
  mandate_id: z.string().nullable(),
  currency: z.string(),
  controls: z.record(z.unknown()),
  expires_at: z.string().nullable(),
  metadata: z.record(z.unknown()),
});
export type CardRequest = z.infer<typeof cardRequest>;

/** What the issuer says of the card it created: no number, no CVC. */
export interface MintedCard {
  issuerCardId: string;
  last4: string;
  network: string;
  expMonth: number;
  expYear: number;
}

export const agentMintFlowRow = z.object({
  id: z.string(),
  org_id: z.string(),
  project_id: z.string(),
  environment: z.enum(['live', 'test']),
  issuer: z.string(),
  status: z.enum(['pending', 'minted', 'failed']),
  step: z.enum(MINT_STEPS),
  card_id: z.string().nullable(),
  issuer_card_id: z.string().nullable(),
  failure_reason: z.string().nullable(),
  request: z.record(z.unknown()),
  created_at: z.string(),
  updated_at: z.string(),
});
export type AgentMintFlowRow = z.infer<typeof agentMintFlowRow>;
const COLUMNS = sql.fragment`id, org_id, project_id, environment, issuer, status, step, card_id, issuer_card_id,
  failure_reason, request, created_at, updated_at`;

export const requestOf = (flow: AgentMintFlowRow): CardRequest => cardRequest.parse(flow.request);

export async function openAgentMintFlow(
  db: CommonQueryMethods,
  scope: IssuerScope & { environment: Environment },
  issuer: string,
  request: CardRequest,
): Promise<AgentMintFlowRow> {
  return db.one(sql.type(agentMintFlowRow)`
    INSERT INTO issuer_mint_flows (id, org_id, project_id, environment, issuer, request)
    VALUES (${sortableId('imf')}, ${scope.orgId}, ${scope.projectId}, ${scope.environment}, ${issuer},
      ${sql.jsonb(request as never)})
    RETURNING ${COLUMNS}`);
}

/** A flow by id alone, for the steps of its workflow. */
export async function mintFlowById(db: CommonQueryMethods, id: string): Promise<AgentMintFlowRow | null> {
  return db.maybeOne(sql.type(agentMintFlowRow)`SELECT ${COLUMNS} FROM issuer_mint_flows WHERE id = ${id}`);
}

/** A flow in the caller's project; flows the deprecated read wrote carry no request and read the same. */
export async function findAgentMintFlow(
  db: CommonQueryMethods,
  scope: IssuerScope,
  id: string,
): Promise<AgentMintFlowRow | null> {
  return db.maybeOne(sql.type(agentMintFlowRow)`
    SELECT ${COLUMNS} FROM issuer_mint_flows WHERE id = ${id} AND org_id = ${scope.orgId} AND project_id = ${scope.projectId}`);
}

/** Moves a pending flow from one step to the next; false when it had already moved. */
export async function advanceMintFlow(
  db: CommonQueryMethods,
  id: string,
  from: MintStep,
  to: MintStep,
  issuerCardId?: string,
): Promise<boolean> {
  const moved = await db.maybeOne(sql.type(z.object({ id: z.string() }))`
    UPDATE issuer_mint_flows SET step = ${to}, updated_at = now(),
      issuer_card_id = COALESCE(${issuerCardId ?? null}::text, issuer_card_id)
    WHERE id = ${id} AND step = ${from} AND status = 'pending' RETURNING id`);
  return moved !== null;
}

export async function failMintFlow(db: CommonQueryMethods, id: string, reason: string): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE issuer_mint_flows SET status = 'failed', step = 'failed', failure_reason = ${reason}, updated_at = now()
    WHERE id = ${id} AND status = 'pending'`);
}

/**
 * Writes the minted card and ends the flow `minted`, with `card.created`, in one transaction. A second call
 * finds the card the first wrote.
 */
export async function finishMint(db: DatabasePool, flowId: string, card: MintedCard): Promise<string> {
  return db.transaction(async (tx) => {
    const flow = await tx.one(
      sql.type(agentMintFlowRow)`SELECT ${COLUMNS} FROM issuer_mint_flows WHERE id = ${flowId} FOR UPDATE`,
    );
    if (flow.card_id) return flow.card_id;
    const request = requestOf(flow);
    const cardId = sortableId('icrd');
    await tx.query(sql.unsafe`
      INSERT INTO issuer_cards (id, org_id, project_id, environment, issuer, card_id, last4, network, status, wallet_id,
        mandate_id, currency, controls, exp_month, exp_year, expires_at, metadata)
      VALUES (${cardId}, ${flow.org_id}, ${flow.project_id}, ${flow.environment}, ${flow.issuer}, ${card.issuerCardId},
        ${card.last4}, ${card.network}, 'active', ${request.wallet_id}, ${request.mandate_id}, ${request.currency},
        ${sql.jsonb(request.controls as never)}, ${card.expMonth}, ${card.expYear}, ${request.expires_at},
        ${sql.jsonb(request.metadata as never)})`);
    await tx.query(sql.unsafe`
      UPDATE issuer_mint_flows SET status = 'minted', step = 'minted', card_id = ${cardId}, updated_at = now()
      WHERE id = ${flowId}`);
    await recordEvent(
      tx,
      { orgId: flow.org_id, projectId: flow.project_id, environment: flow.environment },
      'card.created',
      { card_id: cardId, mint_flow_id: flowId, wallet_id: request.wallet_id, last4: card.last4 },
    );
    return cardId;
  });
}
