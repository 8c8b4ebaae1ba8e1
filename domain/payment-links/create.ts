// Creating a link: its Accept rules, the consumers a provisioned accept names, and the row. Nothing is
// written unless every accept can be honoured.
import { ApiError } from '../errors';
import { findConsumer } from '../consumers/consumers';
import type { DatabasePool } from '../../runtime/database';
import type { PaymentLinkCreateBody } from '../../schema/http/payment-links';
import { normalizeAccepts, type AcceptRequest } from './accepts';
import { createLink, type LinkInput, type LinkRow, type LinkScope } from './links';
import { receivingWallet, type ProvisionWallet } from './x402/wallets';

export interface CreateLinkRequest extends Omit<LinkInput, 'accepts'> {
  accepts: AcceptRequest[];
}

/** A create body (the REST route's or the `payment_links.create` tool's arguments) as the domain takes it. */
export function linkCreateRequest(
  body: PaymentLinkCreateBody,
  environment: 'live' | 'test',
): CreateLinkRequest {
  return {
    slug: body.slug,
    title: body.title,
    description: body.description ?? null,
    accepts: body.accepts,
    environment,
    oneTime: body.one_time ?? false,
    maxUses: body.max_uses ?? null,
    expiresAt: body.expires_at ?? null,
    redirectUrl: body.redirect_url ?? null,
    metadata: body.metadata ?? {},
  };
}

export async function createPaymentLink(
  db: DatabasePool,
  scope: LinkScope,
  request: CreateLinkRequest,
  /** Makes a consumer's receiving wallet at the provider; a failure refuses the link with 502. */
  provisionWallet: ProvisionWallet,
): Promise<LinkRow> {
  const { accepts, provisioned } = normalizeAccepts(request.accepts);
  if (request.expiresAt !== null && Date.parse(request.expiresAt) <= Date.now()) {
    throw new ApiError(400, 'expires_at_in_past', 'expires_at must be in the future');
  }
  for (const need of provisioned) {
    const consumer = await findConsumer(db, { ...scope, environment: request.environment }, need.consumerId);
    if (!consumer)
      throw new ApiError(400, 'invalid_payto', 'The provisioned pay_to names no consumer of this project', {
        index: need.index,
      });
    const wallet = await receivingWallet(db, { ...scope, consumerId: need.consumerId }, provisionWallet);
    accepts[need.index] = { ...accepts[need.index], pay_to: wallet };
  }
  return createLink(db, scope, { ...request, accepts });
}
