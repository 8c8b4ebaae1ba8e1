// The OAuth authorization-code flow of a connection in flight: a `state` row made when the project
// starts the flow (with the sealed PKCE verifier), consumed once by the managed callback within 10 minutes.
import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import { open, seal, type KeyRing } from '../crypto/secret-box';
import type { Environment } from '../tenancy/api-key-format';

const LIFETIME_MINUTES = 10;

export interface StartedFlow {
  state: string;
  codeChallenge: string;
  expiresAt: string;
}

export async function startOAuthFlow(
  db: CommonQueryMethods,
  ring: KeyRing,
  input: {
    orgId: string;
    projectId: string;
    provider: string;
    environment: Environment;
    label: string | null;
    redirectUri: string;
  },
): Promise<StartedFlow> {
  const state = randomBytes(24).toString('base64url');
  const verifier = randomBytes(32).toString('base64url');
  const expiresAt = await db.oneFirst(sql.type(z.object({ expires_at: z.string() }))`
    INSERT INTO provider_oauth_states (state, org_id, project_id, provider, environment, label, redirect_uri, code_verifier, expires_at)
    VALUES (${state}, ${input.orgId}, ${input.projectId}, ${input.provider}, ${input.environment}, ${input.label}, ${input.redirectUri},
      ${seal(ring, verifier, `oauth-state:${state}`)}, now() + make_interval(mins => ${LIFETIME_MINUTES}))
    RETURNING expires_at`);
  return { state, codeChallenge: createHash('sha256').update(verifier).digest('base64url'), expiresAt };
}

const flowRow = z.object({
  org_id: z.string(),
  project_id: z.string(),
  provider: z.string(),
  environment: z.enum(['live', 'test']),
  label: z.string().nullable(),
  redirect_uri: z.string(),
  code_verifier: z.string(),
});

export interface ConsumedFlow {
  orgId: string;
  projectId: string;
  provider: string;
  environment: Environment;
  label: string | null;
  redirectUri: string;
  codeVerifier: string;
}

/** Takes a live, unused state exactly once; null when it is unknown, used or expired. */
export async function consumeOAuthFlow(
  db: CommonQueryMethods,
  ring: KeyRing,
  state: string,
): Promise<ConsumedFlow | null> {
  const row = await db.maybeOne(sql.type(flowRow)`
    UPDATE provider_oauth_states SET consumed_at = now()
    WHERE state = ${state} AND consumed_at IS NULL AND expires_at > now()
    RETURNING org_id, project_id, provider, environment, label, redirect_uri, code_verifier`);
  if (!row) return null;
  return {
    orgId: row.org_id,
    projectId: row.project_id,
    provider: row.provider,
    environment: row.environment,
    label: row.label,
    redirectUri: row.redirect_uri,
    codeVerifier: open(ring, row.code_verifier, `oauth-state:${state}`),
  };
}

export async function recordFlowConnection(
  db: CommonQueryMethods,
  state: string,
  connectionId: string,
): Promise<void> {
  await db.query(
    sql.unsafe`UPDATE provider_oauth_states SET connection_id = ${connectionId} WHERE state = ${state}`,
  );
}
