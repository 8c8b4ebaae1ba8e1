// Who is calling: resolved once per request by the authenticate middleware, read by every handler.
import type { Environment } from '../domain/tenancy/api-key-format';

export type PrincipalKind = 'api_key' | 'oauth' | 'service';

export interface Principal {
  kind: PrincipalKind;
  orgId: string;
  projectId: string;
  environment: Environment;
  keyId: string | null; // the API key (or the key an OAuth grant was made with); null for the service credential
  scopes: string[];
  userId: string | null; // x-service-user on service calls
}

/** A service call that targets no project: only operator routes that name their organization accept it. */
export interface OperatorPrincipal {
  kind: 'service';
  userId: string | null;
  projectId: string | null;
}

export function actorOf(principal: Principal): string {
  if (principal.kind === 'service') return principal.userId ? `user:${principal.userId}` : 'service';
  return `${principal.kind === 'oauth' ? 'oauth' : 'key'}:${principal.keyId}`;
}
