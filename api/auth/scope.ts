// Scope enforcement. Wildcard keys and the service credential pass; a restricted key needs the route's
// scope, and a route with no scope mapping refuses every restricted key.
import { ApiError, forbiddenScope } from '../../domain/errors';
import { WILDCARD } from '../../contracts/scopes';
import type { Principal } from '../principal';
import type { RouteScope } from '../route';

export function requireScope(principal: Principal, scope: RouteScope): void {
  if (principal.kind === 'service' || principal.scopes.includes(WILDCARD) || scope === null) return;
  if (scope === 'unmapped') {
    throw new ApiError(
      403,
      'route_scope_unmapped',
      'This route has no scope mapping, so restricted keys cannot call it; use an unrestricted key',
    );
  }
  if (!principal.scopes.includes(scope)) throw forbiddenScope(scope);
}
