// Who may write payment links: shared by the REST routes and the gateway's `payment_links.create` tool. Writes are the account's own: an OAuth client never makes
// them, and a service call does only for an acting admin.
import { ApiError } from '../../domain/errors';
import { listMembers } from '../../domain/tenancy/members';
import type { AppDeps } from '../deps';
import type { Principal } from '../principal';

export async function requireLinkWriter(deps: AppDeps, principal: Principal): Promise<void> {
  if (principal.kind === 'api_key') return;
  if (principal.kind === 'service' && principal.userId) {
    const member = (await listMembers(deps.db, principal.orgId, principal.projectId)).find(
      (row) => row.user_id === principal.userId,
    );
    if (member && (member.role === 'owner' || member.role === 'admin')) return;
  }
  throw new ApiError(
    403,
    'forbidden',
    principal.kind === 'oauth'
      ? 'Payment links are managed with an API key, not an OAuth token'
      : 'A service credential manages payment links only for an acting admin (x-service-user)',
  );
}
