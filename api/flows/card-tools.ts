// The `cards` server's tools, made by the same functions as the `/v1/cards` routes (api/flows/cards.ts) and
// answered in the routes' shapes, so their rules, refusals and events are the routes'. The display link is
// answered to the caller alone: the tool call's record keeps its expiry, never the link.
import type { ToolCallOutcome } from '../../domain/sessions/tool-calls';
import type { CardOperation } from '../../domain/tools/card-tools';
import type { ValidateFunction } from 'ajv';
import { CardCreate, type CardCreateBody, type CardListQueryValues } from '../../schema/http/cards';
import type { AppDeps } from '../deps';
import { presentAuthorization, presentCard, presentMintFlow } from '../presenters/cards';
import type { Principal } from '../principal';
import { requireScope } from '../auth/scope';
import { compile, conforming } from '../validation';
import { ISSUER_WEBHOOK_PATH } from '../routes/issuer';
import { cardAuthorizations, displayCard, getCard, issueCard, listCards, moveCard } from './cards';

/** A tool's outcome, and (for the display link) what the caller is answered instead of what is recorded. */
export type CardToolOutcome = ToolCallOutcome & { shown?: Record<string, unknown> };

const DEFAULT_LIMIT = 50;
const validCardCreate = compile(CardCreate, 'body') as ValidateFunction<CardCreateBody>;

export async function runCardTool(
  deps: AppDeps,
  principal: Principal,
  operation: CardOperation,
  args: Record<string, unknown>,
  origin: string,
): Promise<CardToolOutcome> {
  // A tool grants no more than its route: the card routes take unrestricted keys only (no scope maps
  // them), so a restricted key or a least-privilege OAuth token is refused here exactly as there.
  requireScope(principal, 'unmapped');
  const done = (output: Record<string, unknown>): CardToolOutcome => ({ ok: true, errorCode: null, output });
  const cardId = String(args.card_id);
  switch (operation) {
    case 'create': {
      // The tool-call path has checked args against CardCreate; the same check types them.
      const body = conforming(validCardCreate, args, 'body');
      const created = await issueCard(deps, principal, body, `${origin}${ISSUER_WEBHOOK_PATH}`);
      return done(created.kind === 'card' ? presentCard(created.card) : presentMintFlow(created.flow));
    }
    case 'list': {
      const query = { limit: DEFAULT_LIMIT, ...args } as CardListQueryValues;
      const { cards, nextBefore } = await listCards(deps, principal, query);
      return done({ cards: cards.map(presentCard), next_before: nextBefore });
    }
    case 'get':
      return done(presentCard(await getCard(deps, principal, cardId)));
    case 'freeze':
    case 'unfreeze':
    case 'close':
      return done(presentCard(await moveCard(deps, principal, cardId, operation)));
    case 'display': {
      const display = await displayCard(deps, principal, cardId);
      return { ...done({ card_id: cardId, expires_at: display.expires_at }), shown: display };
    }
    case 'authorizations': {
      const limit = typeof args.limit === 'number' ? args.limit : DEFAULT_LIMIT;
      const views = await cardAuthorizations(deps, principal, cardId, limit);
      return done({ authorizations: views.map(presentAuthorization) });
    }
  }
}
