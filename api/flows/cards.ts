// Agent cards as both doors make them (the `/v1/cards` routes and the `cards` server's tools). Reads page
// the project's cards and a card's authorizations. Where the issuer is called while the caller waits: issuing a card (its mint flow's
// run, waited on for a bounded time), freezing, unfreezing and closing it at the issuer before the gateway
// records the move, and opening the issuer's own display page. An issuer's refusal or silence changes
// nothing at the gateway.
import { ApiError, notFound } from '../../domain/errors';
import { listCardAuthorizations, type AuthorizationView } from '../../domain/issuer/authorizations';
import {
  findAgentCard,
  listAgentCards,
  setAgentCardStatus,
  type AgentCardRow,
} from '../../domain/issuer/cards';
import { findAgentMintFlow, openAgentMintFlow, type AgentMintFlowRow } from '../../domain/issuer/mint-flows';
import { findMandate } from '../../domain/mandates/mandates';
import { providerEndpoint } from '../../domain/providers/endpoints';
import { getWallet } from '../../domain/wallets/wallets';
import { mintCard } from '../../orchestration/cards';
import { issuerProvider, IssuerRefused, type IssuerProvider } from '../../providers/issuer/client';
import type { CardCreateBody, CardListQueryValues } from '../../schema/http/cards';
import type { AppDeps } from '../deps';
import type { Principal } from '../principal';

/** The provider name of the card issuer (PROVIDER_ISSUER_URL). */
export const ISSUER = 'issuer';
/** How long a create waits for its mint flow before answering 202 with the flow. */
const MINT_WAIT_MS = 10_000;

const scopeOf = (p: Principal) => ({ orgId: p.orgId, projectId: p.projectId, environment: p.environment });

function issuerFor(deps: AppDeps, principal: Principal): IssuerProvider {
  const baseUrl = providerEndpoint(deps.config, ISSUER, principal.environment);
  if (!baseUrl)
    throw new ApiError(
      422,
      'card_issuing_unavailable',
      `No ${principal.environment} card issuer is configured`,
      {
        reason: 'not_configured',
      },
    );
  return issuerProvider({
    baseUrl,
    apiKey: deps.config.issuer.apiKey,
    timeoutMs: deps.config.providerTimeoutMs,
  });
}

async function callIssuer<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const code = error instanceof IssuerRefused ? error.code : 'issuer_unavailable';
    throw new ApiError(502, 'issuer_error', `The card issuer could not do it (${code}); nothing changed`, {
      reason: code,
    });
  }
}

export type CreatedCard =
  { kind: 'card'; card: AgentCardRow } | { kind: 'mint_flow'; flow: AgentMintFlowRow };

export async function issueCard(
  deps: AppDeps,
  principal: Principal,
  body: CardCreateBody,
  callbackUrl: string,
): Promise<CreatedCard> {
  issuerFor(deps, principal);
  const scope = scopeOf(principal);
  const wallet = await getWallet(deps.db, scope.orgId, scope.projectId, body.wallet_id);
  if (wallet.status !== 'active')
    throw new ApiError(
      409,
      'wallet_not_active',
      `The wallet is ${wallet.status}; cards are issued on active wallets`,
      {
        status: wallet.status,
      },
    );
  if (body.mandate_id !== undefined) {
    const mandate = await findMandate(deps.db, scope, body.mandate_id);
    if (!mandate) throw notFound('Mandate');
    if (mandate.status !== 'active' || mandate.currency !== wallet.currency)
      throw new ApiError(409, 'mandate_not_usable', "The mandate is not active in the wallet's currency", {
        status: mandate.status,
        currency: mandate.currency,
      });
  }
  const flow = await openAgentMintFlow(deps.db, scope, ISSUER, {
    wallet_id: wallet.id,
    mandate_id: body.mandate_id ?? null,
    currency: wallet.currency,
    controls: body.spending_controls ?? {},
    expires_at: body.expires_at ?? null,
    metadata: body.metadata ?? {},
  });
  const outcome = await mintCard(deps.temporal, { flowId: flow.id, callbackUrl }, scope, MINT_WAIT_MS);
  if (outcome?.status === 'failed')
    throw new ApiError(502, 'issuer_error', 'The card issuer could not issue the card', {
      reason: outcome.reason,
      mint_flow_id: flow.id,
    });
  if (outcome?.status === 'minted') {
    const card = await findAgentCard(deps.db, scope, outcome.cardId);
    if (card) return { kind: 'card', card };
  }
  return { kind: 'mint_flow', flow: (await findAgentMintFlow(deps.db, scope, flow.id)) ?? flow };
}

const MOVES = {
  freeze: { status: 'frozen', issuer: 'inactive' },
  unfreeze: { status: 'active', issuer: 'active' },
  close: { status: 'closed', issuer: 'canceled' },
} as const;
export type CardMove = keyof typeof MOVES;

async function openCard(deps: AppDeps, principal: Principal, id: string): Promise<AgentCardRow> {
  const card = await findAgentCard(deps.db, scopeOf(principal), id);
  if (!card) throw notFound('Card');
  if (card.status === 'closed')
    throw new ApiError(409, 'card_closed', 'The card is closed; it never changes again', {
      status: 'closed',
    });
  return card;
}

/** Moves the card at the issuer, then here; moving a card to the status it has changes nothing. */
export async function moveCard(
  deps: AppDeps,
  principal: Principal,
  id: string,
  move: CardMove,
): Promise<AgentCardRow> {
  const card = await openCard(deps, principal, id);
  const target = MOVES[move];
  if (card.status === target.status) return card;
  const issuer = issuerFor(deps, principal);
  await callIssuer(() => issuer.setStatus(card.card_id, target.issuer));
  const moved = await setAgentCardStatus(deps.db, scopeOf(principal), id, target.status);
  return moved ?? (await openCard(deps, principal, id));
}

/** A single-use display page at the issuer; its URL is answered once and kept nowhere. */
export async function displayCard(
  deps: AppDeps,
  principal: Principal,
  id: string,
): Promise<{ url: string; expires_at: string }> {
  const card = await openCard(deps, principal, id);
  const issuer = issuerFor(deps, principal);
  const session = await callIssuer(() => issuer.displaySession(card.card_id));
  return { url: session.url, expires_at: session.expiresAt.toISOString() };
}

/** A page of the project's cards, newest first, and the id to pass as `before` for the next one. */
export async function listCards(
  deps: AppDeps,
  principal: Principal,
  query: CardListQueryValues,
): Promise<{ cards: AgentCardRow[]; nextBefore: string | null }> {
  const rows = await listAgentCards(deps.db, scopeOf(principal), {
    walletId: query.wallet_id,
    limit: query.limit + 1,
    before: query.before,
  });
  const page = rows.slice(0, query.limit);
  return { cards: page, nextBefore: rows.length > query.limit ? page[page.length - 1].id : null };
}

export async function getCard(deps: AppDeps, principal: Principal, id: string): Promise<AgentCardRow> {
  const card = await findAgentCard(deps.db, scopeOf(principal), id);
  if (!card) throw notFound('Card');
  return card;
}

/** A card's authorizations, newest first; 404 for a card not in the caller's project. */
export async function cardAuthorizations(
  deps: AppDeps,
  principal: Principal,
  id: string,
  limit: number,
): Promise<AuthorizationView[]> {
  const card = await getCard(deps, principal, id);
  return listCardAuthorizations(deps.db, scopeOf(principal), card.id, limit);
}
