// A trigger may narrow itself to one server; naming a server nobody publishes is `unknown_server` (400).
// The directory is the catalog (its providers and the project's generated servers) and the tenant tool
// servers of the environment, whose events name their slug as `server_id`.
import { catalogServerExists } from '../providers/resolve';
import { toolServerSlugExists } from '../tool-servers/servers';
import type { CommonQueryMethods } from '../../runtime/database';
import { ApiError } from '../errors';

export async function requireKnownServer(
  db: CommonQueryMethods,
  environment: 'live' | 'test',
  serverId: string | null | undefined,
): Promise<void> {
  if (serverId === null || serverId === undefined) return;
  if (
    !(await catalogServerExists(db, serverId)) &&
    !(await toolServerSlugExists(db, environment, serverId))
  ) {
    throw new ApiError(
      400,
      'unknown_server',
      `No server "${serverId}" in the catalog or among tool servers`,
      {
        server_id: serverId,
      },
    );
  }
}
