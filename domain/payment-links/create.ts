// Creating a link: its Accept rules, the consumers a provisioned accept names, and the row. Nothing is
// written unless every accept can be honoured.
import { ApiError } from '../errors';
import { findConsumer } from '../consumers/consumers';
import type { DatabasePool } from '../../runtime/database';
import { normalizeAccepts, type AcceptRequest } from './accepts';
import { createLink, type LinkInput, type LinkRow, type LinkScope } from './links';

export interface CreateLinkRequest extends Omit<LinkInput, 'accepts'> {
  accepts: AcceptRequest[];
}

export async function createPaymentLink(
  db: DatabasePool,
  scope: LinkScope,
  request: CreateLinkRequest,
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
    // The x402 rail (its local chain and wallet provisioning) is not wired yet: refuse before writing anything.
    throw new ApiError(
      501,
      'not_wired',
      'Provisioned x402 receiving wallets are not available yet; use a byo address',
      { index: need.index },
    );
  }
  return createLink(db, scope, { ...request, accepts });
}
