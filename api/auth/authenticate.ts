// Resolves the bearer credential into a Principal: the service credential (constant-time compare),
// an API key (peppered hash lookup, cached), or an OAuth access token. Anything else is the bare 401.
import { createHash, timingSafeEqual } from 'node:crypto';
import type Koa from 'koa';
import { FlatError, projectResolutionFailed, unauthorized } from '../../domain/errors';
import { findActiveKey } from '../../domain/tenancy/api-keys';
import { hashApiKey, keyEnvironment } from '../../domain/tenancy/api-key-format';
import { findProjectById } from '../../domain/tenancy/projects';
import type { AppDeps } from '../deps';
import type { OperatorPrincipal, Principal } from '../principal';
import type { AuthKind } from '../route';
import { resolveAccessToken } from './access-tokens';
import { bearerChallenge } from './challenge';

function bearer(ctx: Koa.Context): string | undefined {
  const header = ctx.get('Authorization');
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match?.[1];
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

function isServiceToken(token: string, expected: string | undefined): boolean {
  // Lengths are not secret (keys are always 41 characters), so only a same-length token pays for the
  // constant-time comparison of digests.
  if (!expected || token.length !== expected.length) return false;
  return timingSafeEqual(digest(token), digest(expected));
}

async function keyPrincipal(deps: AppDeps, token: string): Promise<Principal> {
  const claimed = keyEnvironment(token);
  if (!claimed) throw unauthorized();
  const hash = hashApiKey(token, deps.config.apiKeyPepper);
  let credential = deps.keyCache.get(hash);
  if (credential === undefined) {
    credential = await findActiveKey(deps.db, hash);
    deps.keyCache.set(hash, credential);
  }
  // The prefix must match the environment of the project the key operates on.
  if (!credential || credential.project_environment !== claimed || credential.key_environment !== claimed)
    throw unauthorized();
  return {
    kind: 'api_key',
    orgId: credential.org_id,
    projectId: credential.project_id,
    environment: credential.project_environment,
    keyId: credential.key_id,
    scopes: credential.scopes,
    userId: null,
  };
}

async function servicePrincipal(deps: AppDeps, ctx: Koa.Context): Promise<Principal> {
  const projectId = ctx.get('x-service-project');
  // Absent or naming no project, the spec's Errors table answers the same flat 500: no project resolved.
  if (!projectId) throw projectResolutionFailed();
  const project = await findProjectById(deps.db, projectId);
  if (!project) throw projectResolutionFailed();
  return {
    kind: 'service',
    orgId: project.org_id,
    projectId,
    environment: project.environment,
    keyId: null,
    scopes: ['*'],
    userId: ctx.get('x-service-user') || null,
  };
}

/** `challengeScope`: the scope a 401 names, on routes whose OAuth clients ask for just what they need. */
export async function authenticate(
  deps: AppDeps,
  ctx: Koa.Context,
  auth: AuthKind,
  challengeScope?: string,
): Promise<Principal | OperatorPrincipal | null> {
  if (auth === 'public') return null;
  try {
    return await resolveCredential(deps, ctx, auth);
  } catch (error) {
    // Routes that take OAuth tokens point the client at the protected-resource metadata.
    if (auth === 'key' && error instanceof FlatError && error.status === 401)
      throw unauthorized(bearerChallenge(deps, ctx, bearer(ctx) !== undefined, challengeScope));
    throw error;
  }
}

async function resolveCredential(
  deps: AppDeps,
  ctx: Koa.Context,
  auth: Exclude<AuthKind, 'public'>,
): Promise<Principal | OperatorPrincipal> {
  const token = bearer(ctx);
  if (!token) throw unauthorized();
  const service = isServiceToken(token, deps.config.serviceToken);
  if (auth === 'operator') {
    // Operator surfaces answer 401 to every API key and OAuth token, whatever its scopes.
    if (!service) throw unauthorized();
    return {
      kind: 'service',
      userId: ctx.get('x-service-user') || null,
      projectId: ctx.get('x-service-project') || null,
    };
  }
  if (service) return servicePrincipal(deps, ctx);
  if (keyEnvironment(token)) return keyPrincipal(deps, token);
  const viaOAuth = await resolveAccessToken(deps, token);
  if (viaOAuth) return viaOAuth;
  throw unauthorized();
}
