// The OpenAPI document as the server builds it from the route declarations, without a server:
// the CLI build writes it, and the CLI tests compare the built commands with it.
import { allRoutes } from '../../api/routes';
import { buildOpenApi } from '../../api/openapi';

export function currentDocument(): Record<string, unknown> {
  return buildOpenApi(allRoutes(), undefined);
}
