// Agent cards published as tools of the built-in server `cards`, which a session includes by naming it:
// the same operations as `/v1/cards` (issue, list, read, freeze, unfreeze, close, the issuer's display link,
// a card's authorizations), their input schemas the HTTP operations' own request schemas. None moves money
// itself (authorizations are decided when the issuer asks); every call passes the policy gate under its
// tool name, so `cards.*` rules govern them.
import { CardCreate, CardId, CardListQuery } from '../../schema/http/cards';
import type { JsonSchema } from '../../schema/http/json-schema';

export const CARDS_SERVER_ID = 'cards';

export type CardOperation =
  'create' | 'list' | 'get' | 'freeze' | 'unfreeze' | 'close' | 'display' | 'authorizations';

export interface CardTool {
  name: string;
  operation: CardOperation;
  description: string;
  /** Reads only the gateway's own records (no issuer call, no change). */
  readOnly: boolean;
  inputSchema: Record<string, unknown>;
}

const oneCard = {
  type: 'object',
  required: ['card_id'],
  additionalProperties: false,
  properties: { card_id: { ...CardId, description: "The card (`icrd_`), in the caller's project." } },
} as const satisfies JsonSchema;

export const CARD_TOOLS: CardTool[] = [
  {
    name: 'cards.create',
    operation: 'create',
    readOnly: false,
    description:
      "Issue a virtual card bound to a wallet, with optional spending_controls (per-authorization and periodic limits, merchant categories, merchant allowlist), a consumer's mandate and an expiry: the same body as POST /v1/cards. Answers the card, or its mint flow while the issuer is still minting it. The number and CVC stay with the issuer (cards.display).",
    inputSchema: CardCreate,
  },
  {
    name: 'cards.list',
    operation: 'list',
    readOnly: true,
    description: "The project's cards, newest first, optionally of one wallet; next_before pages on.",
    inputSchema: CardListQuery,
  },
  {
    name: 'cards.get',
    operation: 'get',
    readOnly: true,
    description: 'Read a card: its status, wallet, currency, spending_controls and expiry.',
    inputSchema: oneCard,
  },
  {
    name: 'cards.freeze',
    operation: 'freeze',
    readOnly: false,
    description:
      'Freeze a card: the issuer and the gateway decline every authorization until it is unfrozen.',
    inputSchema: oneCard,
  },
  {
    name: 'cards.unfreeze',
    operation: 'unfreeze',
    readOnly: false,
    description: 'Make a frozen card active again.',
    inputSchema: oneCard,
  },
  {
    name: 'cards.close',
    operation: 'close',
    readOnly: false,
    description: 'Close a card for good; captures and refunds of earlier authorizations still apply.',
    inputSchema: oneCard,
  },
  {
    name: 'cards.display',
    operation: 'display',
    readOnly: false,
    description:
      "A single-use link to the issuer's own page showing the card's number and CVC, valid for a few minutes. The gateway never sees the number; the link is answered once and kept nowhere.",
    inputSchema: oneCard,
  },
  {
    name: 'cards.authorizations',
    operation: 'authorizations',
    readOnly: true,
    description:
      "A card's authorizations, newest first: what the gateway approved or declined (and why), held, captured and refunded.",
    inputSchema: {
      ...oneCard,
      properties: {
        ...oneCard.properties,
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
      },
    },
  },
];
