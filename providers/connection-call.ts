// One upstream call with a project's connection: open the sealed credential, refresh an OAuth token
// that is about to expire, inject the credential for the server's auth type, and send. Used by
// verify-connection and the proxy; the credential never leaves this call.
import type { CatalogServer } from '../domain/providers/catalog';
import { openCredential, type ConnectionRow } from '../domain/providers/connections';
import type { SealedSecret } from '../domain/vault/envelope';
import type { KeyService } from '../domain/vault/key-service';
import type { DatabasePool } from '../runtime/database';
import { injectCredential, type Credential } from './auth';
import { freshOAuthCredential, type OAuthClient } from './auth/oauth-refresh';
import { sendUpstream, type SendLimits, type UpstreamAnswer } from './upstream/send';

export interface ConnectionCallDeps {
  db: DatabasePool;
  keys: KeyService;
  oauthClient: OAuthClient | undefined;
}

export interface ConnectionCall {
  server: CatalogServer;
  baseUrl: string;
  connection: ConnectionRow | null;
  /** The connection's sealed credential when already read with it (currentConnectionSealed). */
  sealed?: SealedSecret | null;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: Buffer;
}

export async function callWithConnection(
  deps: ConnectionCallDeps,
  call: ConnectionCall,
  limits: SendLimits,
): Promise<{ answer: UpstreamAnswer; credential: Credential }> {
  let credential: Credential = call.connection
    ? await openCredential(deps.db, deps.keys, call.connection, call.sealed)
    : {};
  if (call.server.auth_type === 'oauth' && call.connection) {
    credential = await freshOAuthCredential(
      { db: deps.db, keys: deps.keys, client: deps.oauthClient, limits },
      call.server,
      call.baseUrl,
      call.connection,
      credential,
    );
  }
  const url = new URL(call.baseUrl.replace(/\/+$/, '') + call.path);
  const request = injectCredential(
    {
      method: call.method,
      url,
      headers: { accept: 'application/json', ...call.headers },
      body: call.body ?? Buffer.alloc(0),
    },
    credential,
    call.server,
  );
  return { answer: await sendUpstream(request, limits), credential };
}

/** The provider's words from an answer, with every stored credential value blanked out in case it echoed one. */
export function providerWords(body: Buffer, credential: Credential): string {
  let text = body.toString('utf8').slice(0, 2000);
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    const said = parsed.message ?? parsed.error_description ?? parsed.detail ?? parsed.error;
    if (typeof said === 'string') text = said;
  } catch {
    // not JSON: the raw text is the provider's words
  }
  for (const value of Object.values(credential)) {
    if (value && value.length >= 4) text = text.split(value).join('[redacted]');
  }
  return text.slice(0, 500);
}
