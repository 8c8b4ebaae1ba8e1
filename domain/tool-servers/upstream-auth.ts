// A tool server's upstream credential in the vault: envelope-sealed under the configured key service, bound
// to the server's organization, project and id (moving the sealed columns to another row breaks them), and
// opened only on the way to the upstream. It is never returned by any route. Also where a call finds its
// upstream (any state: a call in flight may outlive a delete).
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import type { EncryptionContext, KeyService } from '../vault/key-service';
import { openSecret, sealSecret, type SealedSecret } from '../vault/envelope';

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
  return openSealed(keys, serverId, await sealedUpstreamAuth(db, serverId));
}

/** The header and value to send upstream from a credential already read (sealedOf), or null for none. */
export async function openSealed(
  keys: KeyService,
  serverId: string,
  stored: SealedUpstreamAuth | null,
): Promise<{ header: string; value: string } | null> {
  if (!stored) return null;
  const fields = await openSecret(keys, context(stored.orgId, stored.projectId, serverId), stored.sealed);
  return { header: stored.header, value: fields.value };
}

export const sealedRow = z.object({
  auth_header: z.string().nullable(),
  auth_ciphertext: z.string().nullable(),
  auth_wrapped_key: z.string().nullable(),
  auth_key_ref: z.string().nullable(),
  org_id: z.string(),
  project_id: z.string(),
});

export interface SealedUpstreamAuth {
  header: string;
  sealed: SealedSecret;
  orgId: string;
  projectId: string;
}

/** The sealed upstream credential of a server (any state: a call in flight may outlive a delete). */
export async function sealedUpstreamAuth(
  db: CommonQueryMethods,
  serverId: string,
): Promise<SealedUpstreamAuth | null> {
  return sealedOf(
    await db.maybeOne(sql.type(sealedRow)`
    SELECT auth_header, auth_ciphertext, auth_wrapped_key, auth_key_ref, org_id, project_id FROM tool_servers WHERE id = ${serverId}`),
  );
}

/** A server row's sealed credential columns as the credential, or null when it has none. */
export function sealedOf(row: z.infer<typeof sealedRow> | null): SealedUpstreamAuth | null {
  if (!row?.auth_header || !row.auth_ciphertext || !row.auth_wrapped_key || !row.auth_key_ref) return null;
  return {
    header: row.auth_header,
    sealed: { ciphertext: row.auth_ciphertext, wrappedKey: row.auth_wrapped_key, keyRef: row.auth_key_ref },
    orgId: row.org_id,
    projectId: row.project_id,
  };
}

/** A server's upstream URL and environment by id, for the call path (any state). */
export async function serverEndpoint(
  db: CommonQueryMethods,
  serverId: string,
): Promise<{ upstreamUrl: string; environment: 'live' | 'test' } | null> {
  const row = await db.maybeOne(sql.type(
    z.object({ upstream_url: z.string(), environment: z.enum(['live', 'test']) }),
  )`
    SELECT upstream_url, environment FROM tool_servers WHERE id = ${serverId}`);
  return row ? { upstreamUrl: row.upstream_url, environment: row.environment } : null;
}
