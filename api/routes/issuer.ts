// The issuer's side of agent cards: the deprecated issued-card read (an `icrd_` id answers its card, an
// `imf_` id its mint flow, both only inside the caller's organization and project; replaced by
// GET /v1/cards/{id} and GET /v1/card-mint-flows/{id}), and the signed messages the issuer sends: the
// real-time authorization request, answered within its deadline, and the later captures, reversals,
// expiries and refunds, each applied once and in the issuer's order.
import { ApiError } from '../../domain/errors';
import { findIssuerRecord } from '../../domain/issuer/cards';
import {
  answerAuthorizationRequest,
  receiveIssuerMessage,
  type LaterMessage,
} from '../../domain/issuer/issuer-messages';
import { ISSUER_SIGNATURE_HEADER, verifyIssuerMessage } from '../../domain/issuer/webhook-signature';
import { ErrorEnvelope } from '../../schema/http/common';
import { IssuedCard, IssuerEvent, IssuerRecordParams, MintFlow } from '../../schema/http/issuer';
import { DEPRECATION_HEADERS } from '../deprecation';
import { ISSUER } from '../flows/cards';
import { noteAuthorizationClosed, startAuthorizationExpiry } from '../../orchestration/card-authorizations';
import { afterAnswer } from '../after-answer';
import { route, type AnyRoute } from '../route';

export const ISSUER_WEBHOOK_PATH = '/webhooks/issuer';

const invalid = (message: string) => new ApiError(400, 'invalid_body', message);
const text = (value: unknown, what: string): string => {
  if (typeof value !== 'string' || value.length === 0 || value.length > 255)
    throw invalid(`${what} must be a string`);
  return value;
};
const amount = (value: unknown): bigint => {
  if (!Number.isSafeInteger(value) || (value as number) <= 0)
    throw invalid('amount must be a positive integer');
  return BigInt(value as number);
};
const optionalText = (value: unknown): string | null =>
  typeof value === 'string' && value.length > 0 && value.length <= 255 ? value : null;
/** The issuer's stated expiry (Unix seconds), when it states a usable one. */
const optionalExpiry = (value: unknown): Date | null =>
  Number.isSafeInteger(value) && (value as number) > 0 ? new Date((value as number) * 1000) : null;

/** A later message in the gateway's terms, or null for a type it does not act on. */
function laterMessage(
  type: string,
  object: Record<string, unknown>,
): { authorization: string; message: LaterMessage } | null {
  if (type === 'issuing_transaction.created') {
    const kind = object.type;
    if (kind !== 'capture' && kind !== 'refund') throw invalid('a transaction is a capture or a refund');
    return {
      authorization: text(object.authorization, 'authorization'),
      message: { type: kind, issuerTransactionId: text(object.id, 'id'), amountMinor: amount(object.amount) },
    };
  }
  if (type === 'issuing_authorization.reversed' || type === 'issuing_authorization.expired')
    return {
      authorization: text(object.id, 'id'),
      message: { type: type === 'issuing_authorization.reversed' ? 'reversal' : 'expiry' },
    };
  return null;
}

export const issuerRoutes: AnyRoute[] = [
  route({
    method: 'get',
    path: '/v1/issuer/cards/:id',
    auth: 'key',
    scope: 'unmapped',
    tags: ['Issuer'],
    operationId: 'getIssuerCard',
    summary: 'An issued card (`icrd_` id) or a card mint flow (`imf_` id)',
    description:
      "Deprecated: answers `Deprecation` and `Link` headers. Replaced by `GET /v1/cards/{id}` for an `icrd_` id and `GET /v1/card-mint-flows/{id}` for an `imf_` id, whose answers carry the card's wallet, controls and the flow's step.",
    deprecated: true,
    params: IssuerRecordParams,
    responses: {
      200: { description: 'The card or the mint flow', schema: { oneOf: [IssuedCard, MintFlow] } },
      404: {
        description: '`not_found`: neither exists in this organization and project',
        schema: ErrorEnvelope,
      },
    },
    async handler({ deps, principal, params }) {
      const record = await findIssuerRecord(deps.db, principal, params.id);
      if (!record)
        throw new ApiError(404, 'not_found', 'Card not found', undefined, { ...DEPRECATION_HEADERS });
      return {
        headers: { ...DEPRECATION_HEADERS },
        body: record.kind === 'card' ? record.card : record.flow,
      };
    },
  }),
  route({
    method: 'post',
    path: ISSUER_WEBHOOK_PATH,
    auth: 'public',
    scope: null,
    tags: ['Inbound webhooks'],
    undocumented: true,
    operationId: 'issuerWebhook',
    summary: "The card issuer's signed authorization requests and later messages",
    body: IssuerEvent,
    responses: {
      200: { description: 'The decision (`approved`, `decline_reason`), or the receipt of a later message' },
      400: { description: '`invalid_body`: nothing applied', schema: ErrorEnvelope },
      401: { description: '`invalid_signature`: nothing read, nothing changed', schema: ErrorEnvelope },
    },
    async handler({ deps, body, ctx }) {
      const raw = (ctx.state as { rawBody?: Buffer }).rawBody ?? Buffer.alloc(0);
      const check = verifyIssuerMessage(
        deps.config.issuer.webhookSecret,
        ctx.get(ISSUER_SIGNATURE_HEADER) || undefined,
        raw,
        Math.floor(Date.now() / 1000),
      );
      if (!check.ok)
        throw new ApiError(401, 'invalid_signature', 'The issuer signature does not verify', {
          reason: check.reason,
        });
      const object = body.data.object;
      if (body.type === 'issuing_authorization.request') {
        const merchant = (object.merchant_data ?? {}) as Record<string, unknown>;
        const category = optionalText(merchant.category_code);
        const { reply, expiry } = await answerAuthorizationRequest(deps.db, {
          issuer: ISSUER,
          issuerAuthorizationId: text(object.id, 'id'),
          issuerCardId: text(object.card, 'card'),
          amountMinor: amount(object.amount),
          currency: text(object.currency, 'currency').toUpperCase(),
          merchant: {
            category_code: category && /^[0-9]{4}$/.test(category) ? category : null,
            name: optionalText(merchant.name),
            network_id: optionalText(merchant.network_id),
          },
          expiresAt: optionalExpiry(object.expires_at),
        });
        // Started off the issuer's clock, once the decision has committed; the reply does not wait on it.
        if (expiry)
          afterAnswer(deps, 'starting a card authorization expiry', () =>
            startAuthorizationExpiry(deps.temporal, deps.db, expiry),
          );
        return { type: 'application/json', body: reply };
      }
      const later = laterMessage(body.type, object);
      if (!later) return { body: { received: true, status: 'ignored' } };
      if (body.sequence === undefined || body.sequence < 2)
        throw invalid('a later message carries its sequence (2 or more)');
      const { receipt, closed } = await receiveIssuerMessage(deps.db, {
        issuer: ISSUER,
        messageId: body.id,
        issuerAuthorizationId: later.authorization,
        sequence: body.sequence,
        message: later.message,
      });
      if (closed)
        afterAnswer(deps, 'ending a card authorization expiry', () =>
          noteAuthorizationClosed(deps.temporal, ISSUER, later.authorization),
        );
      return { body: { received: true, status: receipt } };
    },
  }),
];
