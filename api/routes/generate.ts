// Generated tool servers of the caller's project. A credential that resolves to no project (the
// service credential without x-service-project) is a 400 here, not the flat 500 of other routes.
import { ApiError } from '../../domain/errors';
import { listGeneratedServers } from '../../domain/generated-servers/servers';
import { ErrorEnvelope } from '../../schema/http/common';
import { GeneratedServerList } from '../../schema/http/generate';
import { route, type AnyRoute } from '../route';

export const generateRoutes: AnyRoute[] = [
  route<unknown, unknown, Record<string, string>, 'key'>({
    method: 'get',
    path: '/v1/generate/servers',
    auth: 'key',
    scope: 'servers:read',
    tags: ['Generated servers'],
    operationId: 'listGeneratedServers',
    summary: "The project's generated tool servers, newest first",
    responses: {
      200: { description: 'The servers', schema: GeneratedServerList },
      400: {
        description: '`project_required`: the credential resolves to no project',
        schema: ErrorEnvelope,
      },
    },
    noProjectError: () => new ApiError(400, 'project_required', 'This credential resolves to no project'),
    async handler({ deps, principal }) {
      const servers = await listGeneratedServers(deps.db, principal);
      return { body: { servers } };
    },
  }),
];
