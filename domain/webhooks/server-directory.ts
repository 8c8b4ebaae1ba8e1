// The seam to the server catalog, which belongs to another area: a trigger may narrow itself to one
// server, and naming an unknown server is `unknown_server` (400). Until the catalog lands, the
// directory knows a server id by its shape (a catalog slug); the catalog replaces `knowsServer`.
import { ApiError } from '../errors';
import type { EndpointScope } from './endpoints';

export interface ServerDirectory {
  knowsServer(scope: EndpointScope, serverId: string): Promise<boolean>;
}

const SERVER_SLUG = /^[a-z0-9][a-z0-9._-]{0,127}$/;

export const slugShapedServers: ServerDirectory = {
  async knowsServer(_scope, serverId) {
    return SERVER_SLUG.test(serverId);
  },
};

export async function requireKnownServer(directory: ServerDirectory, scope: EndpointScope, serverId: string | null | undefined): Promise<void> {
  if (serverId === null || serverId === undefined) return;
  if (!(await directory.knowsServer(scope, serverId))) {
    throw new ApiError(400, 'unknown_server', `No server "${serverId}" in the catalog`, { server_id: serverId });
  }
}
