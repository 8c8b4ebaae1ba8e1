// Agent cards, designed as Stripe Issuing's: issue a virtual card bound to a wallet (through its mint flow),
// list and read cards, freeze, unfreeze and close them, open the issuer's display page, read a card's
// authorizations, and read a mint flow while it runs. The issuer's authorization requests arrive at
// POST /webhooks/issuer (api/routes/issuer.ts).
import { notFound } from '../../domain/errors';
import { findAgentMintFlow } from '../../domain/issuer/mint-flows';
import { ErrorEnvelope } from '../../schema/http/common';
import {
  Card,
  CardAuthorizationList,
  CardCreate,
  CardDisplay,
  CardList,
  CardListQuery,
  CardMintFlow,
  CardParams,
  MintFlowParams,
} from '../../schema/http/cards';
import {
  cardAuthorizations,
  displayCard,
  getCard,
  issueCard,
  listCards,
  moveCard,
  type CardMove,
} from '../flows/cards';
import { presentAuthorization, presentCard, presentMintFlow } from '../presenters/cards';
import type { Principal } from '../principal';
import { publicOrigin } from '../public-origin';
import { route, type AnyRoute } from '../route';
import { ISSUER_WEBHOOK_PATH } from './issuer';

const tags = ['Cards'];
const envelope = (description: string) => ({ description, schema: ErrorEnvelope });
const cardNotFound = envelope("`not_found`: no such card in the caller's project");
const badId = envelope('`invalid_params`: the id is not an `icrd_` id');
const scopeOf = (p: Principal) => ({ orgId: p.orgId, projectId: p.projectId });

function moveRoute(move: CardMove, summary: string, description: string): AnyRoute {
  return route({
    method: 'post',
    path: `/v1/cards/:id/${move}`,
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: `${move}Card`,
    summary,
    description,
    params: CardParams,
    responses: {
      200: { description: 'The card as it stands now', schema: Card },
      400: badId,
      404: cardNotFound,
      409: envelope('`card_closed`: a closed card never changes again'),
      422: envelope('`card_issuing_unavailable`: no issuer is configured for this environment'),
      502: envelope('`issuer_error`: the issuer could not change the card; nothing changed'),
    },
    async handler({ deps, principal, params }) {
      return { body: presentCard(await moveCard(deps, principal, params.id, move)) };
    },
  });
}

export const cardRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/v1/cards',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'createCard',
    summary: 'Issue a virtual card bound to a wallet',
    description:
      "Starts a mint flow (`imf_`) that registers the gateway at the issuer, creates the card there and records it. The card takes the wallet's currency; every authorization the issuer asks about is decided by the gateway against the card's status and `spending_controls`, the mandate if any, the wallet's policies (tool name `card.authorization`) and its available balance, and an approval holds the amount on the wallet. " +
      'Answers 201 with the card when the flow finishes within a few seconds, else 202 with the flow to read at `Location`. The number and CVC stay with the issuer (`POST /v1/cards/{id}/display`). ' +
      "An approval lapses at its `expires_at` (the issuer's, else seven days after the decision): the gateway then releases what it still holds. Agents reach every card operation through MCP too: a session naming the server `cards` publishes them as tools (`cards.create`, …).",
    body: CardCreate,
    responses: {
      201: { description: 'The card, minted', schema: Card },
      202: { description: 'The mint flow, still running', schema: CardMintFlow },
      400: envelope('`invalid_body` with details.issues'),
      404: envelope("`not_found`: no such wallet or mandate in the caller's project"),
      409: envelope('`wallet_not_active`, `mandate_not_usable` (not active, or in another currency)'),
      422: envelope('`card_issuing_unavailable`: no issuer is configured for this environment'),
      502: envelope(
        '`issuer_error`: the issuer refused or failed; the mint flow ended `failed` (details.mint_flow_id)',
      ),
    },
    async handler({ deps, principal, body, ctx }) {
      const created = await issueCard(
        deps,
        principal,
        body,
        `${publicOrigin(deps.config, ctx)}${ISSUER_WEBHOOK_PATH}`,
      );
      if (created.kind === 'card') return { status: 201, body: presentCard(created.card) };
      return {
        status: 202,
        headers: { Location: `/v1/card-mint-flows/${created.flow.id}` },
        body: presentMintFlow(created.flow),
      };
    },
  }),
  route({
    method: 'get',
    path: '/v1/cards',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'listCards',
    summary: "The project's cards, newest first",
    query: CardListQuery,
    responses: {
      200: { description: 'A page of cards', schema: CardList },
      400: envelope('`invalid_query`'),
    },
    async handler({ deps, principal, query }) {
      const { cards, nextBefore } = await listCards(deps, principal, query);
      return { body: { cards: cards.map(presentCard), next_before: nextBefore } };
    },
  }),
  route({
    method: 'get',
    path: '/v1/cards/:id',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'getCard',
    summary: 'A card',
    params: CardParams,
    responses: { 200: { description: 'The card', schema: Card }, 400: badId, 404: cardNotFound },
    async handler({ deps, principal, params }) {
      return { body: presentCard(await getCard(deps, principal, params.id)) };
    },
  }),
  moveRoute(
    'freeze',
    'Freeze a card: every authorization is declined until it is unfrozen',
    'Sets the card inactive at the issuer, then here (`card.updated`). Holds already granted still settle.',
  ),
  moveRoute(
    'unfreeze',
    'Make a frozen card active again',
    'Sets the card active at the issuer, then here (`card.updated`).',
  ),
  moveRoute(
    'close',
    'Close a card for good',
    'Cancels the card at the issuer, then here (`card.updated`); captures and refunds of earlier authorizations still apply.',
  ),
  route({
    method: 'post',
    path: '/v1/cards/:id/display',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'displayCard',
    summary: "A single-use link to the issuer's page showing the card's number and CVC",
    params: CardParams,
    responses: {
      200: { description: 'The display link, valid for a few minutes and once', schema: CardDisplay },
      400: badId,
      404: cardNotFound,
      409: envelope('`card_closed`'),
      422: envelope('`card_issuing_unavailable`: no issuer is configured for this environment'),
      502: envelope('`issuer_error`'),
    },
    async handler({ deps, principal, params }) {
      return {
        headers: { 'Cache-Control': 'no-store' },
        body: await displayCard(deps, principal, params.id),
      };
    },
  }),
  route({
    method: 'get',
    path: '/v1/cards/:id/authorizations',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'listCardAuthorizations',
    summary: "A card's authorizations with what each held, captured and refunded, newest first",
    params: CardParams,
    query: {
      type: 'object',
      additionalProperties: false,
      properties: { limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
    },
    responses: {
      200: { description: 'The authorizations', schema: CardAuthorizationList },
      400: envelope('`invalid_params`, `invalid_query`'),
      404: cardNotFound,
    },
    async handler({ deps, principal, params, query }) {
      const views = await cardAuthorizations(deps, principal, params.id, query.limit);
      return { body: { authorizations: views.map(presentAuthorization) } };
    },
  }),
  route({
    method: 'get',
    path: '/v1/card-mint-flows/:id',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'getCardMintFlow',
    summary: 'A card mint flow, readable while it runs',
    params: MintFlowParams,
    responses: {
      200: { description: 'The mint flow', schema: CardMintFlow },
      400: envelope('`invalid_params`: the id is not an `imf_` id'),
      404: envelope("`not_found`: no such mint flow in the caller's project"),
    },
    async handler({ deps, principal, params }) {
      const flow = await findAgentMintFlow(deps.db, scopeOf(principal), params.id);
      if (!flow) throw notFound('Mint flow');
      return { body: presentMintFlow(flow) };
    },
  }),
];
