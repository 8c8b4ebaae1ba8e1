// A tool server's upstream credential in the vault: envelope-sealed under the configured key service, bound
// to the server's organization, project and id (moving the sealed columns to another row breaks them), and
// opened only on the way to the upstream. It is never returned by any route.
import type { CommonQueryMethods } from '../../runtime/database';
import type { EncryptionContext, KeyService } from '../vault/key-service';
import { openSecret, sealSecret, type SealedSecret } from '../vault/envelope';
import { sealedUpstreamAuth } from './servers';

const context = (orgId: string, projectId: string, serverId: string): EncryptionContext => ({
  org_id: orgId,
  project_id: projectId,
  tool_server_id: serverId,
  purpose: 'tool_server_upstream',
});

export function sealUpstreamAuth(
  keys: KeyService,
  scope: { orgId: string; projectId: string },
  serverId: string,
  value: string,
): Promise<SealedSecret> {
  return sealSecret(keys, context(scope.orgId, scope.projectId, serverId), { value });
}

/** The header and value to send upstream, or null when the server has none. */
export async function openUpstreamAuth(
  db: CommonQueryMethods,
  keys: KeyService,
  serverId: string,
): Promise<{ header: string; value: string } | null> {
  const stored = await sealedUpstreamAuth(db, serverId);
  if (!stored) return null;
  const fields = await openSecret(keys, context(stored.orgId, stored.projectId, serverId), stored.sealed);
  return { header: stored.header, value: fields.value };
}
