// Operator-only surfaces (service credential; API keys and OAuth tokens get 401). Left out of the
// OpenAPI document: organizations, users, API keys, project members, the worker readiness probe, and held
// tool charges (operator-tool-charges.ts).
import { ApiError, notFound } from '../../domain/errors';
import { createApiKey, listApiKeys, revokeApiKey } from '../../domain/tenancy/api-keys';
import { addUser, listMembers, removeMember, requireRole, setMemberRole } from '../../domain/tenancy/members';
import { createOrganization, getOrganization } from '../../domain/tenancy/organizations';
import { findProjectById, type ProjectRow } from '../../domain/tenancy/projects';
import { ApiKeyCreate, OrganizationCreate, UserCreate } from '../../schema/http/identity';
import { MemberPatch, MemberWrite } from '../../schema/http/projects';
import type { AppDeps } from '../deps';
import type { OperatorPrincipal } from '../principal';
import { presentProject } from '../presenters/project';
import { runWorkerProbe } from '../../orchestration/probe';
import { route, type AnyRoute } from '../route';
import { operatorToolChargeRoutes } from './operator-tool-charges';

const tags = ['Operator'];
const ok = { 200: { description: 'OK' } };

/** The project a service call targets, checked against the organization of the project in the path. */
async function targetProject(
  deps: AppDeps,
  principal: OperatorPrincipal,
  projectId: string | null,
): Promise<ProjectRow> {
  const id = projectId ?? principal.projectId;
  if (!id) throw new ApiError(400, 'project_required', 'Name the project in the x-service-project header');
  const project = await findProjectById(deps.db, id);
  if (!project) throw notFound('Project');
  if (projectId && principal.projectId) {
    const scoped = await findProjectById(deps.db, principal.projectId);
    if (!scoped || scoped.org_id !== project.org_id) throw notFound('Project');
  }
  return project;
}

/** Member writes need an admin when a service call acts for a user. */
async function requireAdmin(deps: AppDeps, principal: OperatorPrincipal, project: ProjectRow): Promise<void> {
  if (principal.userId) await requireRole(deps.db, project.org_id, project.id, principal.userId, 'admin');
}

function presentKey(row: {
  id: string;
  name: string;
  key_hint: string;
  environment: string;
  scopes: string[];
  project_id: string;
  created_at: string;
  revoked_at: string | null;
}) {
  return {
    id: row.id,
    name: row.name,
    hint: row.key_hint,
    environment: row.environment,
    scopes: row.scopes,
    project_id: row.project_id,
    created_at: row.created_at,
    revoked_at: row.revoked_at,
  };
}

export const operatorRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/v1/orgs',
    auth: 'operator',
    scope: null,
    tags,
    operationId: 'createOrganization',
    summary: 'Create an organization with its default project',
    body: OrganizationCreate,
    responses: { 201: { description: 'Created' } },
    async handler({ deps, body }) {
      const { organization, project } = await createOrganization(deps.db, body);
      return {
        status: 201,
        body: {
          organization: { id: organization.id, name: organization.name },
          project: presentProject(project),
        },
      };
    },
  }),
  route({
    method: 'post',
    path: '/v1/orgs/:orgId/users',
    auth: 'operator',
    scope: null,
    tags,
    operationId: 'addUser',
    summary: 'Add a user to an organization with an organization role',
    body: UserCreate,
    responses: { 201: { description: 'Created' } },
    async handler({ deps, params, body }) {
      await getOrganization(deps.db, params.orgId);
      return { status: 201, body: await addUser(deps.db, params.orgId, body) };
    },
  }),
  route({
    method: 'post',
    path: '/v1/api-keys',
    auth: 'operator',
    scope: null,
    tags,
    operationId: 'createApiKey',
    summary: 'Mint an API key for the project in x-service-project (the value is shown once)',
    body: ApiKeyCreate,
    responses: { 201: { description: 'Created' } },
    async handler({ deps, principal, body }) {
      const project = await targetProject(deps, principal, null);
      const { row, key } = await createApiKey(deps.db, project, body, deps.config.apiKeyPepper);
      return {
        status: 201,
        body: {
          id: row.id,
          key,
          environment: row.environment,
          scopes: row.scopes,
          project_id: row.project_id,
          created_at: row.created_at,
        },
      };
    },
  }),
  route({
    method: 'get',
    path: '/v1/api-keys',
    auth: 'operator',
    scope: null,
    tags,
    operationId: 'listApiKeys',
    summary: 'List the keys of the project in x-service-project (never their values)',
    responses: ok,
    async handler({ deps, principal }) {
      const project = await targetProject(deps, principal, null);
      return { body: { api_keys: (await listApiKeys(deps.db, project.org_id, project.id)).map(presentKey) } };
    },
  }),
  route({
    method: 'delete',
    path: '/v1/api-keys/:id',
    auth: 'operator',
    scope: null,
    tags,
    operationId: 'revokeApiKey',
    summary: 'Revoke a key; it stops working at once',
    responses: ok,
    async handler({ deps, principal, params }) {
      const scope = principal.projectId ? await targetProject(deps, principal, null) : null;
      const { row, keyHash } = await revokeApiKey(deps.db, params.id, scope?.org_id ?? null);
      await deps.keyCache.revoked(keyHash);
      return { body: presentKey(row) };
    },
  }),
  route({
    method: 'get',
    path: '/v1/projects/:id/members',
    auth: 'operator',
    scope: null,
    tags,
    operationId: 'listProjectMembers',
    summary: 'Members of a project: owner, admins, members, oldest first',
    responses: ok,
    async handler({ deps, principal, params }) {
      const project = await targetProject(deps, principal, params.id);
      return { body: { members: await listMembers(deps.db, project.org_id, project.id) } };
    },
  }),
  route({
    method: 'post',
    path: '/v1/projects/:id/members',
    auth: 'operator',
    scope: null,
    tags,
    operationId: 'addProjectMember',
    summary: 'Set a project-level role for an organization user',
    body: MemberWrite,
    responses: { 201: { description: 'Created' } },
    async handler({ deps, principal, params, body }) {
      const project = await targetProject(deps, principal, params.id);
      await requireAdmin(deps, principal, project);
      return {
        status: 201,
        body: await setMemberRole(deps.db, project.org_id, project.id, body.user_id, body.role, false),
      };
    },
  }),
  route({
    method: 'patch',
    path: '/v1/projects/:id/members/:userId',
    auth: 'operator',
    scope: null,
    tags,
    operationId: 'updateProjectMember',
    summary: 'Change a project-level role',
    body: MemberPatch,
    responses: ok,
    async handler({ deps, principal, params, body }) {
      const project = await targetProject(deps, principal, params.id);
      await requireAdmin(deps, principal, project);
      return {
        body: await setMemberRole(deps.db, project.org_id, project.id, params.userId, body.role, true),
      };
    },
  }),
  route({
    method: 'delete',
    path: '/v1/projects/:id/members/:userId',
    auth: 'operator',
    scope: null,
    tags,
    operationId: 'removeProjectMember',
    summary: 'Remove a project-level role (204 even when none existed)',
    responses: { 204: { description: 'Removed' } },
    async handler({ deps, principal, params }) {
      const project = await targetProject(deps, principal, params.id);
      await requireAdmin(deps, principal, project);
      await removeMember(deps.db, project.org_id, project.id, params.userId);
      return { status: 204 };
    },
  }),
  route({
    method: 'get',
    path: '/v1/ops/readiness',
    auth: 'operator',
    scope: null,
    tags,
    operationId: 'readiness',
    summary: 'Run the worker probe workflow: a worker polls and reaches PostgreSQL',
    query: {
      type: 'object',
      additionalProperties: false,
      properties: { timeout_ms: { type: 'integer', minimum: 100, maximum: 30_000, default: 10_000 } },
    },
    responses: ok,
    async handler({ deps, requestId, query }) {
      const started = Date.now();
      const { workflowId, result } = await runWorkerProbe(deps.temporal, requestId, query.timeout_ms);
      return {
        body: {
          status: 'ok',
          worker: 'polling',
          workflow_id: workflowId,
          ...result,
          elapsed_ms: Date.now() - started,
        },
      };
    },
  }),
  ...operatorToolChargeRoutes,
];
