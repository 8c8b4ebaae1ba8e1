// A trigger may narrow itself to one server; naming a server the catalog does not hold is `unknown_server` (400).
// The catalog (catalog servers, and later the project's generated servers) is the only directory.
import { catalogServerExists } from '../providers/catalog';
import type { CommonQueryMethods } from '../../runtime/database';
import { ApiError } from '../errors';

export async function requireKnownServer(
  db: CommonQueryMethods,
  serverId: string | null | undefined,
): Promise<void> {
  if (serverId === null || serverId === undefined) return;
  if (!(await catalogServerExists(db, serverId))) {
    throw new ApiError(400, 'unknown_server', `No server "${serverId}" in the catalog`, {
      server_id: serverId,
    });
  }
}
