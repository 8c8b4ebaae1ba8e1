// The provider side of `oauth` connections: exchanging an authorization code for tokens, and refreshing
// an access token that is about to expire, re-sealing the new tokens (the refresh token stays sealed).
import type { CatalogServer } from '../../domain/providers/catalog';
import {
  lockConnection,
  openCredential,
  resealCredential,
  type ConnectionRow,
} from '../../domain/providers/connections';
import type { KeyService } from '../../domain/vault/key-service';
import type { DatabasePool } from '../../runtime/database';
import { sendUpstream, type SendLimits } from '../upstream/send';
import type { Credential } from './request';

export interface OAuthClient {
  clientId: string;
  clientSecret: string;
}

/** The provider refused the grant: its words, for the caller (never about the caller's own key). */
export class OAuthGrantRefused extends Error {
  constructor(
    readonly status: number,
    readonly words: string,
  ) {
    super(`the provider refused the OAuth grant (${status})`);
    this.name = 'OAuthGrantRefused';
  }
}

const REFRESH_MARGIN_MS = 30_000;

export async function requestTokens(
  server: CatalogServer,
  baseUrl: string,
  client: OAuthClient | undefined,
  grant: Record<string, string>,
  limits: SendLimits,
  now = Date.now(),
): Promise<Credential> {
  if (!server.oauth || !client)
    throw new OAuthGrantRefused(0, `no OAuth client is configured for ${server.id}`);
  const form = new URLSearchParams({
    ...grant,
    client_id: client.clientId,
    client_secret: client.clientSecret,
  });
  const answer = await sendUpstream(
    {
      method: 'POST',
      url: new URL(`${baseUrl.replace(/\/+$/, '')}${server.oauth.token_path}`),
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: Buffer.from(form.toString()),
    },
    limits,
  );
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(answer.body.toString('utf8'));
  } catch {
    // a non-JSON answer is a refusal below
  }
  if (answer.status !== 200 || typeof parsed.access_token !== 'string') {
    throw new OAuthGrantRefused(
      answer.status,
      String(parsed.error_description ?? parsed.error ?? `token endpoint answered ${answer.status}`).slice(
        0,
        300,
      ),
    );
  }
  const expiresIn = typeof parsed.expires_in === 'number' ? parsed.expires_in : 3600;
  return {
    access_token: parsed.access_token,
    ...(typeof parsed.refresh_token === 'string'
      ? { refresh_token: parsed.refresh_token }
      : grant.refresh_token
        ? { refresh_token: grant.refresh_token }
        : {}),
    expires_at: String(now + expiresIn * 1000),
  };
}

export interface RefreshDeps {
  db: DatabasePool;
  keys: KeyService;
  client: OAuthClient | undefined;
  limits: SendLimits;
}

/**
 * The credential with an access token good for at least 30 s more, refreshing and re-sealing when needed.
 * Providers rotate refresh tokens, so two calls refreshing at once would spend the same one and the
 * second would be refused: the refresh holds the connection's row lock, and a call that waited for it
 * finds the tokens the first one stored.
 */
export async function freshOAuthCredential(
  deps: RefreshDeps,
  server: CatalogServer,
  baseUrl: string,
  connection: ConnectionRow,
  credential: Credential,
): Promise<Credential> {
  const stale = (c: Credential) =>
    Number(c.expires_at ?? 0) <= Date.now() + REFRESH_MARGIN_MS && !!c.refresh_token;
  if (!stale(credential)) return credential;
  return deps.db.transaction(async (tx) => {
    await lockConnection(tx, connection);
    const current = await openCredential(tx, deps.keys, connection);
    if (!stale(current)) return current;
    const next = await requestTokens(
      server,
      baseUrl,
      deps.client,
      { grant_type: 'refresh_token', refresh_token: current.refresh_token },
      deps.limits,
    );
    await resealCredential(tx, deps.keys, connection, next);
    return next;
  });
}

export function oauthClientFor(
  server: CatalogServer,
  environment: 'live' | 'test',
  configured: Record<string, { clientId: string; clientSecret: string }>,
): OAuthClient | undefined {
  if (environment === 'test') {
    const sandbox = server.oauth?.sandbox_client;
    return sandbox ? { clientId: sandbox.client_id, clientSecret: sandbox.client_secret } : undefined;
  }
  return configured[server.id];
}
