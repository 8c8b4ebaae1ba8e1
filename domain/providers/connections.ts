// Provider connections: a project's stored credential for one catalog server. The credential is sealed
// (domain/vault) under a context naming organization, project and connection before any row is written,
// so a key-service failure writes nothing; reads never carry the sealed columns out of this module.
import { sql, type FragmentSqlToken, type IdentifierSqlToken } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabasePool } from '../../runtime/database';
import { ApiError, notFound } from '../errors';
import { sortableId } from '../ids';
import type { Environment } from '../tenancy/api-key-format';
import {
  connectionContext,
  openSecret,
  sealSecret,
  type SealedSecret,
  type SecretFields,
} from '../vault/envelope';
import { SealBroken, VaultUnavailable, type KeyService } from '../vault/key-service';
import type { CatalogServer } from './catalog';

export interface Tenant {
  orgId: string;
  projectId: string;
}

export const connectionRow = z.object({
  id: z.string(),
  org_id: z.string(),
  project_id: z.string(),
  provider: z.string(),
  rail: z.string().nullable(),
  status: z.enum(['active', 'inactive', 'error']),
  status_reason: z.string().nullable(),
  environment: z.string().nullable(),
  auth_type: z.string().nullable(),
  label: z.string().nullable(),
  settings: z.record(z.string()),
  secret_fields: z.array(z.string()),
  created_at: z.string(),
  updated_at: z.string(),
  rotated_at: z.string().nullable(),
  last_verified_at: z.string().nullable(),
});
export type ConnectionRow = z.infer<typeof connectionRow>;

const COLUMNS = sql.fragment`id, org_id, project_id, provider, rail, status, status_reason, environment, auth_type, label, settings,
  secret_fields, created_at, updated_at, rotated_at, last_verified_at`;
const sealedRow = z.object({
  secret_ciphertext: z.string().nullable(),
  secret_wrapped_key: z.string().nullable(),
  secret_key_ref: z.string().nullable(),
});

/** Runs a key-service call; any failure of the service itself is the spec's 503 `vault_unavailable`. */
async function withVault<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof VaultUnavailable)
      throw new ApiError(
        503,
        'vault_unavailable',
        'The credential store is unavailable; nothing was written',
        undefined,
        { 'Retry-After': '5' },
      );
    // A sealed credential that no longer opens under its own row (moved or altered) is unusable, not a crash.
    if (error instanceof SealBroken)
      throw new ApiError(503, 'vault_unavailable', 'The stored credential cannot be opened; rotate it', {
        reason: 'seal_broken',
      });
    throw error;
  }
}

export interface NewConnection {
  server: CatalogServer;
  environment: Environment;
  label: string | null;
  secrets: SecretFields;
  settings: Record<string, string>;
}

export async function createConnection(
  db: DatabasePool,
  keys: KeyService,
  tenant: Tenant,
  input: NewConnection,
): Promise<ConnectionRow> {
  const id = sortableId('conn');
  const sealed = await sealConnection(keys, tenant, id, input.secrets);
  return db.one(sql.type(connectionRow)`${insertConnection(tenant, id, input, sealed)} RETURNING ${COLUMNS}`);
}

/** Seals a new connection's credential under its own id (before any row exists); null when it has none. */
export function sealConnection(
  keys: KeyService,
  tenant: Tenant,
  id: string,
  secrets: SecretFields,
): Promise<SealedSecret | null> {
  if (!Object.keys(secrets).length) return Promise.resolve(null);
  return withVault(() => sealSecret(keys, connectionContext(tenant.orgId, tenant.projectId, id), secrets));
}

function insertConnection(tenant: Tenant, id: string, input: NewConnection, sealed: SealedSecret | null) {
  return sql.fragment`
    INSERT INTO provider_connections (id, org_id, project_id, provider, rail, status, environment, auth_type, label, settings,
      secret_fields, secret_ciphertext, secret_wrapped_key, secret_key_ref)
    VALUES (${id}, ${tenant.orgId}, ${tenant.projectId}, ${input.server.id}, ${input.server.rail}, 'active', ${input.environment},
      ${input.server.auth_type}, ${input.label}, ${sql.jsonb(input.settings)}, ${sql.array(Object.keys(input.secrets).sort(), 'text')},
      ${sealed?.ciphertext ?? null}, ${sealed?.wrappedKey ?? null}, ${sealed?.keyRef ?? null})`;
}

/**
 * Stores a credential the gateway obtained itself (a provisioning run's issued key) as a connection whose
 * id the caller derives from its own key, in the caller's transaction: a retried store finds the row its
 * first try wrote and writes nothing more. `sealed` comes from `sealConnection` with the same id.
 */
export async function storeObtainedConnection(
  tx: CommonQueryMethods,
  tenant: Tenant,
  id: string,
  input: NewConnection,
  sealed: SealedSecret | null,
): Promise<void> {
  await tx.query(sql.unsafe`${insertConnection(tenant, id, input, sealed)} ON CONFLICT (id) DO NOTHING`);
}

export async function listConnections(
  db: CommonQueryMethods,
  tenant: Tenant,
  filter: { provider?: string },
): Promise<ConnectionRow[]> {
  const rows = await db.any(sql.type(connectionRow)`
    SELECT ${COLUMNS} FROM provider_connections
    WHERE org_id = ${tenant.orgId} AND project_id = ${tenant.projectId}
      ${filter.provider ? sql.fragment`AND provider = ${filter.provider}` : sql.fragment``}
    ORDER BY created_at DESC, id DESC`);
  return [...rows];
}

export async function getConnection(
  db: CommonQueryMethods,
  tenant: Tenant,
  id: string,
): Promise<ConnectionRow> {
  const row = await db.maybeOne(sql.type(connectionRow)`
    SELECT ${COLUMNS} FROM provider_connections WHERE org_id = ${tenant.orgId} AND project_id = ${tenant.projectId} AND id = ${id}`);
  if (!row) throw notFound('Connection');
  return row;
}

/** The connection verify-connection and the proxy use for a server: the newest active one, else the newest. */
export async function currentConnection(
  db: CommonQueryMethods,
  tenant: Tenant,
  provider: string,
): Promise<ConnectionRow | null> {
  return db.maybeOne(sql.type(connectionRow)`
    SELECT ${COLUMNS} FROM provider_connections WHERE org_id = ${tenant.orgId} AND project_id = ${tenant.projectId} AND provider = ${provider}
    ORDER BY status = 'active' DESC, created_at DESC, id DESC LIMIT 1`);
}

export async function deleteConnection(db: DatabasePool, tenant: Tenant, id: string): Promise<void> {
  const deleted = await db.maybeOne(sql.type(z.object({ id: z.string() }))`
    DELETE FROM provider_connections WHERE org_id = ${tenant.orgId} AND project_id = ${tenant.projectId} AND id = ${id} RETURNING id`);
  if (!deleted) throw notFound('Connection');
}

/** Replaces the stored credential with a new one under a fresh data key; the connection is active again. */
export async function rotateConnection(
  db: DatabasePool,
  keys: KeyService,
  tenant: Tenant,
  id: string,
  secrets: SecretFields,
  settings: Record<string, string>,
): Promise<ConnectionRow> {
  await getConnection(db, tenant, id);
  const sealed = await withVault(() =>
    sealSecret(keys, connectionContext(tenant.orgId, tenant.projectId, id), secrets),
  );
  const row = await db.maybeOne(sql.type(connectionRow)`
    UPDATE provider_connections SET secret_ciphertext = ${sealed.ciphertext}, secret_wrapped_key = ${sealed.wrappedKey}, secret_key_ref = ${sealed.keyRef},
      secret_fields = ${sql.array(Object.keys(secrets).sort(), 'text')}, settings = ${sql.jsonb(settings)},
      status = 'active', status_reason = NULL, rotated_at = now(), updated_at = now()
    WHERE org_id = ${tenant.orgId} AND project_id = ${tenant.projectId} AND id = ${id}
    RETURNING ${COLUMNS}`);
  if (!row)
    throw new ApiError(409, 'metadata_update_failed', 'The connection vanished while it was being rotated', {
      connection_id: id,
    });
  return row;
}

/** Holds the connection's row until the transaction ends (serializes token refreshes). */
export async function lockConnection(tx: CommonQueryMethods, connection: ConnectionRow): Promise<void> {
  await tx.query(
    sql.unsafe`SELECT 1 FROM provider_connections WHERE org_id = ${connection.org_id} AND project_id = ${connection.project_id} AND id = ${connection.id} FOR UPDATE`,
  );
}

/** Re-seals a connection's credential the gateway itself renewed (OAuth tokens); not a rotation by the account. */
export async function resealCredential(
  db: CommonQueryMethods,
  keys: KeyService,
  connection: ConnectionRow,
  secrets: SecretFields,
): Promise<void> {
  const sealed = await withVault(() =>
    sealSecret(keys, connectionContext(connection.org_id, connection.project_id, connection.id), secrets),
  );
  await db.query(sql.unsafe`
    UPDATE provider_connections SET secret_ciphertext = ${sealed.ciphertext}, secret_wrapped_key = ${sealed.wrappedKey}, secret_key_ref = ${sealed.keyRef},
      secret_fields = ${sql.array(Object.keys(secrets).sort(), 'text')}, updated_at = now()
    WHERE org_id = ${connection.org_id} AND project_id = ${connection.project_id} AND id = ${connection.id}`);
}

function sealedOf(row: z.infer<typeof sealedRow>): SealedSecret | null {
  if (!row.secret_ciphertext || !row.secret_wrapped_key || !row.secret_key_ref) return null;
  return {
    ciphertext: row.secret_ciphertext,
    wrappedKey: row.secret_wrapped_key,
    keyRef: row.secret_key_ref,
  };
}

/**
 * The current connection (as currentConnection) read together with its sealed credential, for a caller
 * about to open it: one round trip instead of two. The sealed columns stay apart from the row, so a
 * presenter given the row can never show them.
 */
export async function currentConnectionSealed(
  db: CommonQueryMethods,
  tenant: Tenant,
  provider: string,
): Promise<SealedConnection | null> {
  const row = await db.maybeOne(sql.type(connectionRow.merge(sealedRow))`
    SELECT ${COLUMNS}, secret_ciphertext, secret_wrapped_key, secret_key_ref FROM provider_connections
    WHERE org_id = ${tenant.orgId} AND project_id = ${tenant.projectId} AND provider = ${provider}
    ORDER BY status = 'active' DESC, created_at DESC, id DESC LIMIT 1`);
  if (!row) return null;
  const { secret_ciphertext, secret_wrapped_key, secret_key_ref, ...connection } = row;
  return { connection, sealed: sealedOf({ secret_ciphertext, secret_wrapped_key, secret_key_ref }) };
}

/** What a caller about to open a connection's credential holds: the row and its sealed credential, apart. */
export interface SealedConnection {
  connection: ConnectionRow;
  sealed: SealedSecret | null;
}

/**
 * The current connection of each of `providers` (as currentConnectionSealed picks it), as one jsonb value
 * another statement can carry: the tool-call path reads them with its call count, saving a round trip.
 * Each part is a value or a column of the carrying statement (`providers` a text[] column).
 */
export function currentConnectionsJson(
  tenant: { orgId: string | IdentifierSqlToken; projectId: string | IdentifierSqlToken },
  providers: string[] | IdentifierSqlToken,
): FragmentSqlToken {
  const wanted = Array.isArray(providers) ? sql.array(providers, 'text') : providers;
  return sql.fragment`(SELECT coalesce(jsonb_agg(to_jsonb(c)), '[]'::jsonb) FROM (
    SELECT DISTINCT ON (provider) ${COLUMNS}, secret_ciphertext, secret_wrapped_key, secret_key_ref FROM provider_connections
    WHERE org_id = ${tenant.orgId} AND project_id = ${tenant.projectId} AND provider = ANY(${wanted})
    ORDER BY provider, status = 'active' DESC, created_at DESC, id DESC) c)`;
}

// jsonb renders timestamps its own way; the rows read here carry them as every other read does (ISO 8601).
const iso = z.string().transform((value) => new Date(value).toISOString());
const jsonConnection = connectionRow
  .extend({ created_at: iso, updated_at: iso, rotated_at: iso.nullable(), last_verified_at: iso.nullable() })
  .merge(sealedRow);

const jsonConnections = z.array(jsonConnection);

/** currentConnectionsJson's value → each provider's current connection; a provider absent has none. */
export function connectionsOf(json: unknown): Map<string, SealedConnection> {
  return new Map(
    jsonConnections
      .parse(json)
      .map(({ secret_ciphertext, secret_wrapped_key, secret_key_ref, ...connection }) => [
        connection.provider,
        { connection, sealed: sealedOf({ secret_ciphertext, secret_wrapped_key, secret_key_ref }) },
      ]),
  );
}

// Credentials opened before, by key service and by the exact sealed form they were opened from: the same
// ciphertext under the same wrapped data key and context always opens to the same fields, and a rotated
// credential is sealed anew (another ciphertext and data key) while a deleted one is no longer read, so a
// kept value can only answer for the sealed form a call has just read, in whichever process. Held in
// memory only, as an opened credential is for the length of a call; never logged.
const MAX_OPENED = 1024;
const openedByKeys = new WeakMap<KeyService, Map<string, SecretFields>>();

async function openKept(
  keys: KeyService,
  connection: ConnectionRow,
  secret: SealedSecret,
): Promise<SecretFields> {
  let opened = openedByKeys.get(keys);
  if (!opened) openedByKeys.set(keys, (opened = new Map()));
  const key = `${connection.org_id}\n${connection.project_id}\n${connection.id}\n${secret.keyRef}\n${secret.wrappedKey}\n${secret.ciphertext}`;
  const kept = opened.get(key);
  if (kept) return { ...kept };
  const fields = await withVault(() =>
    openSecret(keys, connectionContext(connection.org_id, connection.project_id, connection.id), secret),
  );
  if (opened.size >= MAX_OPENED) opened.delete(opened.keys().next().value!);
  opened.set(key, { ...fields });
  return fields;
}

/**
 * Opens a connection's credential for one upstream call. Never logged, never returned. `sealed`, when the
 * caller already read it (currentConnectionSealed), saves the read.
 */
export async function openCredential(
  db: CommonQueryMethods,
  keys: KeyService,
  connection: ConnectionRow,
  sealed?: SealedSecret | null,
): Promise<SecretFields> {
  const secret =
    sealed !== undefined
      ? sealed
      : sealedOf(
          await db.one(sql.type(sealedRow)`
    SELECT secret_ciphertext, secret_wrapped_key, secret_key_ref FROM provider_connections
    WHERE org_id = ${connection.org_id} AND project_id = ${connection.project_id} AND id = ${connection.id}`),
        );
  if (!secret) return {};
  return openKept(keys, connection, secret);
}

/** Records what the provider said of the credential: a refusal marks the connection `error`. */
export async function recordVerification(
  db: CommonQueryMethods,
  connection: ConnectionRow,
  outcome: 'accepted' | 'refused',
): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE provider_connections
    SET last_verified_at = now(), updated_at = now(),
        status = ${outcome === 'accepted' ? 'active' : 'error'}, status_reason = ${outcome === 'accepted' ? null : 'provider_rejected_credential'}
    WHERE org_id = ${connection.org_id} AND project_id = ${connection.project_id} AND id = ${connection.id} AND status <> 'inactive'`);
}
