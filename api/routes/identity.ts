// Who the caller is: key, organization, project, and the acting user when a service call names one.
import { Whoami } from '../../schema/http/identity';
import { route, type AnyRoute } from '../route';
import { findUserDisplay } from '../../domain/tenancy/members';

export const identityRoutes: AnyRoute[] = [
  route({
    method: 'get',
    path: '/v1/whoami',
    auth: 'key',
    scope: null,
    tags: ['Identity'],
    operationId: 'whoami',
    summary: 'Describe the calling credential (needs no scope)',
    responses: { 200: { description: 'The caller', schema: Whoami } },
    async handler({ deps, principal }) {
      const body: Record<string, unknown> = {
        key: { id: principal.keyId, environment: principal.environment, scopes: principal.scopes },
        organization: { id: principal.orgId },
        project: { id: principal.projectId },
      };
      if (principal.userId) {
        const user = await findUserDisplay(deps.db, principal.orgId, principal.userId);
        if (user) body.user = user;
      }
      return { body };
    },
  }),
];
