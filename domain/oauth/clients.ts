// Registered OAuth clients: written once by dynamic registration, read by every authorization step.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import { prefixedId } from '../ids';
import type { ClientMetadata } from './client-metadata';

const clientRow = z.object({
  id: z.string(),
  client_name: z.string().nullable(),
  redirect_uris: z.array(z.string()),
  grant_types: z.array(z.string()),
  response_types: z.array(z.string()),
  token_endpoint_auth_method: z.literal('none'),
  created_at: z.string(),
});
export type OAuthClient = z.infer<typeof clientRow>;
const CLIENT_COLUMNS = sql.fragment`id, client_name, redirect_uris, grant_types, response_types, token_endpoint_auth_method, created_at`;

/** Client ids are public identifiers, not secrets: `ocl_` plus 24 random characters. */
export function isClientId(value: string): boolean {
  return /^ocl_[0-9A-Za-z]{24}$/.test(value);
}

export async function registerClient(db: CommonQueryMethods, metadata: ClientMetadata): Promise<OAuthClient> {
  return db.one(sql.type(clientRow)`
    INSERT INTO oauth_clients (id, client_name, redirect_uris, grant_types, response_types)
    VALUES (${prefixedId('ocl', 24)}, ${metadata.clientName}, ${sql.array(metadata.redirectUris, 'text')},
            ${sql.array(metadata.grantTypes, 'text')}, ${sql.array(metadata.responseTypes, 'text')})
    RETURNING ${CLIENT_COLUMNS}`);
}

export async function findClient(db: CommonQueryMethods, id: string): Promise<OAuthClient | null> {
  if (!isClientId(id)) return null;
  return db.maybeOne(sql.type(clientRow)`SELECT ${CLIENT_COLUMNS} FROM oauth_clients WHERE id = ${id}`);
}
