// Cart connect sessions: the pending session a start records, and the single-use finish, which only
// the organization and project that started the connect can claim.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import { ApiError } from '../errors';
import { prefixedId } from '../ids';
import type { CartMerchant } from './merchants';

export interface CartScope {
  orgId: string;
  projectId: string;
}

/** How long a person has to sign in before the pending session can no longer be finished. */
export const CONNECT_TTL_SECONDS = 30 * 60;

export const connectSessionRow = z.object({
  id: z.string(),
  merchant: z.enum(['meli', 'ifood']),
  context_id: z.string(),
  session_id: z.string(),
  live_view_url: z.string(),
  status: z.enum(['pending', 'connected']),
  created_at: z.string(),
  expires_at: z.string(),
  connected_at: z.string().nullable(),
});
export type ConnectSessionRow = z.infer<typeof connectSessionRow>;

const COLUMNS = sql.fragment`id, merchant, context_id, session_id, live_view_url, status, created_at, expires_at, connected_at`;

export async function recordPendingConnect(
  db: CommonQueryMethods,
  scope: CartScope,
  input: { merchant: CartMerchant; contextId: string; sessionId: string; liveViewUrl: string },
): Promise<ConnectSessionRow> {
  return db.one(sql.type(connectSessionRow)`
    INSERT INTO cart_connect_sessions (id, org_id, project_id, merchant, context_id, session_id, live_view_url, expires_at)
    VALUES (${prefixedId('ccon')}, ${scope.orgId}, ${scope.projectId}, ${input.merchant}, ${input.contextId},
      ${input.sessionId}, ${input.liveViewUrl}, now() + make_interval(secs => ${CONNECT_TTL_SECONDS}))
    RETURNING ${COLUMNS}`);
}

/**
 * Claims the finish of a pending connect: one conditional update, so of two racing finishes exactly one
 * wins. A session of another organization, project or merchant is not found; a finished one is a
 * conflict; a lapsed one is gone.
 */
export async function claimConnectFinish(
  db: CommonQueryMethods,
  scope: CartScope,
  merchant: CartMerchant,
  contextId: string,
): Promise<ConnectSessionRow> {
  const claimed = await db.maybeOne(sql.type(connectSessionRow)`
    UPDATE cart_connect_sessions SET status = 'connected', connected_at = now()
    WHERE context_id = ${contextId} AND org_id = ${scope.orgId} AND project_id = ${scope.projectId}
      AND merchant = ${merchant} AND status = 'pending' AND expires_at > now()
    RETURNING ${COLUMNS}`);
  if (claimed) return claimed;
  const row = await db.maybeOne(sql.type(connectSessionRow)`
    SELECT ${COLUMNS} FROM cart_connect_sessions
    WHERE context_id = ${contextId} AND org_id = ${scope.orgId} AND project_id = ${scope.projectId}
      AND merchant = ${merchant}`);
  if (!row) throw new ApiError(404, 'not_found', 'No connect was started with this context here');
  if (row.status === 'connected')
    throw new ApiError(409, 'connect_already_finished', 'This connect was already finished');
  throw new ApiError(410, 'connect_expired', 'This connect lapsed before it was finished; start a new one');
}
