// API keys: minted for one project, shown once, stored as a peppered hash, revoked in place.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabasePool } from '../../runtime/database';
import { ApiError, notFound } from '../errors';
import { sortableId } from '../ids';
import { generateApiKey, hashApiKey, keyHint } from './api-key-format';
import { isScope, KEY_UNGRANTABLE_SCOPES, WILDCARD } from '../../contracts/scopes';
import type { ProjectRow } from './projects';

const keyRow = z.object({
  id: z.string(),
  org_id: z.string(),
  project_id: z.string(),
  name: z.string(),
  key_hint: z.string(),
  environment: z.enum(['live', 'test']),
  scopes: z.array(z.string()),
  created_at: z.string(),
  revoked_at: z.string().nullable(),
});
export type ApiKeyRow = z.infer<typeof keyRow>;
const KEY_COLUMNS = sql.fragment`id, org_id, project_id, name, key_hint, environment, scopes, created_at, revoked_at`;

export interface CreatedKey {
  row: ApiKeyRow;
  key: string; // the only time the value exists outside the caller's hands
}

export async function createApiKey(
  db: CommonQueryMethods,
  project: Pick<ProjectRow, 'id' | 'org_id' | 'environment'>,
  input: { name: string; scopes?: string[] },
  pepper: string,
): Promise<CreatedKey> {
  const scopes = input.scopes === undefined ? [WILDCARD] : [...new Set(input.scopes)];
  const unknown = scopes.filter((scope) => scope !== WILDCARD && !isScope(scope));
  if (unknown.length > 0)
    throw new ApiError(400, 'invalid_body', `Unknown scope: ${unknown.join(', ')}`, { scopes: unknown });
  const ungrantable = scopes.filter((scope) => (KEY_UNGRANTABLE_SCOPES as readonly string[]).includes(scope));
  if (ungrantable.length > 0) {
    throw new ApiError(
      400,
      'scope_not_grantable',
      `${ungrantable.join(', ')} cannot be listed on a restricted key; create the key without a scope list`,
      { scopes: ungrantable },
    );
  }
  const key = generateApiKey(project.environment);
  const row = await db.one(sql.type(keyRow)`
    INSERT INTO api_keys (id, org_id, project_id, name, key_hash, key_hint, environment, scopes)
    VALUES (${sortableId('key')}, ${project.org_id}, ${project.id}, ${input.name}, ${hashApiKey(key, pepper)},
            ${keyHint(key)}, ${project.environment}, ${sql.array(scopes, 'text')})
    RETURNING ${KEY_COLUMNS}`);
  return { row, key };
}

const credentialRow = z.object({
  key_id: z.string(),
  org_id: z.string(),
  project_id: z.string(),
  key_environment: z.enum(['live', 'test']),
  project_environment: z.enum(['live', 'test']),
  scopes: z.array(z.string()),
});
export type KeyCredential = z.infer<typeof credentialRow>;

/** The live (unrevoked) key with this hash, with its project's environment. */
export async function findActiveKey(db: CommonQueryMethods, keyHash: string): Promise<KeyCredential | null> {
  return db.maybeOne(sql.type(credentialRow)`
    SELECT k.id AS key_id, k.org_id, k.project_id, k.environment AS key_environment,
           p.environment AS project_environment, k.scopes
    FROM api_keys k JOIN projects p ON p.org_id = k.org_id AND p.id = k.project_id
    WHERE k.key_hash = ${keyHash} AND k.revoked_at IS NULL`);
}

export async function listApiKeys(
  db: CommonQueryMethods,
  orgId: string,
  projectId: string,
): Promise<ApiKeyRow[]> {
  const rows = await db.any(sql.type(keyRow)`
    SELECT ${KEY_COLUMNS} FROM api_keys WHERE org_id = ${orgId} AND project_id = ${projectId} ORDER BY created_at, id`);
  return [...rows];
}

export const KEY_REVOKED_CHANNEL = 'gateway_api_key_revoked';

/**
 * Revokes a key (within one organization when orgId is given) and tells every API process to drop it
 * from its cache: the NOTIFY is sent at commit, so no process can re-cache the key as live afterwards.
 * Revoking twice is harmless.
 */
export async function revokeApiKey(
  db: DatabasePool,
  id: string,
  orgId: string | null,
): Promise<{ row: ApiKeyRow; keyHash: string }> {
  return db.transaction(async (tx) => {
    const row = await tx.maybeOne(sql.type(keyRow.extend({ key_hash: z.string() }))`
      UPDATE api_keys SET revoked_at = coalesce(revoked_at, now())
      WHERE id = ${id} AND (${orgId}::text IS NULL OR org_id = ${orgId})
      RETURNING ${KEY_COLUMNS}, key_hash`);
    if (!row) throw notFound('API key');
    await tx.query(sql.unsafe`SELECT pg_notify(${KEY_REVOKED_CHANNEL}, ${row.key_hash})`);
    const { key_hash: keyHash, ...key } = row;
    return { row: key, keyHash };
  });
}
