// Projects of the caller's organization, their settings and settings history. A key reads every project
// of its organization but changes only its own (domain/tenancy/project-access.ts holds the rule).
import type { DatabasePool } from '../../runtime/database';
import {
  PROJECT_ACCESS_RULE,
  checkProjectAccess,
  checkProjectCreate,
  type ProjectAccess,
} from '../../domain/tenancy/project-access';
import {
  deleteProject,
  createProject,
  getProject,
  listProjects,
  updateProject,
  type ProjectRow,
} from '../../domain/tenancy/projects';
import {
  effectiveSettings,
  patchSettings,
  readSettings,
  settingsHistory,
} from '../../domain/tenancy/settings';
import { ErrorEnvelope } from '../../schema/http/common';
import {
  HistoryQuery,
  Project,
  ProjectCreate,
  ProjectList,
  ProjectListQuery,
  ProjectSettingsPatch,
  ProjectUpdate,
  SettingsHistory,
  SettingsView,
} from '../../schema/http/projects';
import { actorOf, type Principal } from '../principal';
import { presentProject } from '../presenters/project';
import { route, type AnyRoute } from '../route';

const tags = ['Projects'];
const notFound = { description: "No such project in the caller's organization", schema: ErrorEnvelope };
const badRequest = { description: 'Invalid input', schema: ErrorEnvelope };
const unauthorized = {
  description: '`{error: "unauthorized"}`: the project is in the other environment than the calling key',
};
const notWritable = {
  description: '`project_not_writable`: the calling key is bound to another project of the organization',
  schema: ErrorEnvelope,
};
const description = PROJECT_ACCESS_RULE;

/** The project named in the path, in the caller's organization (404 otherwise), once the caller may take this access. */
async function projectFor(
  db: DatabasePool,
  principal: Principal,
  id: string,
  access: ProjectAccess,
): Promise<ProjectRow> {
  const project = await getProject(db, principal.orgId, id);
  checkProjectAccess(principal, project, access);
  return project;
}

export const projectRoutes: AnyRoute[] = [
  route({
    method: 'get',
    path: '/v1/projects',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'listProjects',
    summary: "List the projects of the caller's organization",
    description,
    query: ProjectListQuery,
    responses: {
      200: { description: 'A page of projects, oldest first', schema: ProjectList },
      400: badRequest,
    },
    async handler({ deps, principal, query }) {
      const page = await listProjects(deps.db, principal.orgId, {
        isDefault: query.is_default,
        limit: query.limit,
        offset: query.offset,
      });
      return {
        body: {
          projects: page.projects.map(presentProject),
          total: page.total,
          limit: query.limit,
          offset: query.offset,
        },
      };
    },
  }),
  route({
    method: 'get',
    path: '/v1/projects/:id',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'getProject',
    summary: "Retrieve a project of the caller's organization",
    description,
    responses: { 200: { description: 'The project', schema: Project }, 404: notFound },
    async handler({ deps, principal, params }) {
      return { body: presentProject(await projectFor(deps.db, principal, params.id, 'record')) };
    },
  }),
  route({
    method: 'post',
    path: '/v1/projects',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'createProject',
    summary: 'Create a project (never the default)',
    description,
    body: ProjectCreate,
    responses: {
      201: { description: 'The new project', schema: Project },
      401: { description: '`{error: "unauthorized"}`: a key creates projects only in its own environment' },
      400: {
        description:
          '`invalid_body` (details.issues, or details.key for a setting), `slug_invalid`, `slug_reserved`',
        schema: ErrorEnvelope,
      },
      409: { description: '`slug_conflict`', schema: ErrorEnvelope },
    },
    async handler({ deps, principal, body }) {
      const environment = body.environment ?? principal.environment;
      checkProjectCreate(principal, environment);
      const project = await createProject(deps.db, principal.orgId, {
        name: body.name,
        slug: body.slug,
        environment,
        settings: body.settings,
      });
      return { status: 201, body: presentProject(project) };
    },
  }),
  route({
    method: 'patch',
    path: '/v1/projects/:id',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'updateProject',
    summary: 'Rename a project, change its slug, or make it the default',
    description,
    body: ProjectUpdate,
    responses: {
      200: { description: 'The updated project', schema: Project },
      400: badRequest,
      401: unauthorized,
      403: notWritable,
      404: notFound,
      409: { description: '`slug_conflict`', schema: ErrorEnvelope },
    },
    async handler({ deps, principal, params, body }) {
      await projectFor(deps.db, principal, params.id, 'write');
      return { body: presentProject(await updateProject(deps.db, principal.orgId, params.id, body)) };
    },
  }),
  route({
    method: 'delete',
    path: '/v1/projects/:id',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'deleteProject',
    summary: 'Delete a project with its keys, triggers, sessions and connections',
    description: `${description} The last project of an organization is refused with \`cannot_delete_last_project\` before the default is refused with \`cannot_delete_default\`.`,
    responses: {
      200: {
        description: 'Deleted',
        schema: {
          type: 'object',
          required: ['id', 'deleted'],
          properties: { id: { type: 'string' }, deleted: { const: true } },
        },
      },
      401: unauthorized,
      403: notWritable,
      404: notFound,
      409: {
        description:
          '`cannot_delete_default`, `cannot_delete_last_project`, `cannot_delete_with_consumer_records`',
        schema: ErrorEnvelope,
      },
    },
    async handler({ deps, principal, params }) {
      await projectFor(deps.db, principal, params.id, 'write');
      await deleteProject(deps.db, principal.orgId, params.id);
      deps.keyCache.evictProject(params.id);
      return { body: { id: params.id, deleted: true } };
    },
  }),
  route({
    method: 'get',
    path: '/v1/projects/:id/settings',
    auth: 'key',
    scope: 'projects:settings',
    tags,
    operationId: 'getProjectSettings',
    summary: "Read a project's settings, defaults filled in",
    description,
    responses: {
      200: { description: 'Effective settings and the overrides set on this project', schema: SettingsView },
      401: unauthorized,
      404: notFound,
    },
    async handler({ deps, principal, params }) {
      await projectFor(deps.db, principal, params.id, 'settings');
      const overrides = await readSettings(deps.db, principal.orgId, params.id);
      return { body: { project_id: params.id, settings: effectiveSettings(overrides), overrides } };
    },
  }),
  route({
    method: 'patch',
    path: '/v1/projects/:id/settings',
    auth: 'key',
    scope: 'projects:settings',
    tags,
    operationId: 'updateProjectSettings',
    summary: 'Change project settings; every change is recorded in the history',
    description,
    body: ProjectSettingsPatch,
    responses: {
      200: { description: 'Settings after the change', schema: SettingsView },
      400: badRequest,
      401: unauthorized,
      403: notWritable,
      404: notFound,
    },
    async handler({ deps, principal, params, body }) {
      await projectFor(deps.db, principal, params.id, 'write');
      const overrides = await patchSettings(deps.db, principal.orgId, params.id, body, actorOf(principal));
      return { body: { project_id: params.id, settings: effectiveSettings(overrides), overrides } };
    },
  }),
  route({
    method: 'get',
    path: '/v1/projects/:id/settings/history',
    auth: 'key',
    scope: 'projects:settings',
    tags,
    operationId: 'listProjectSettingsHistory',
    summary: 'Settings changes, newest first',
    description,
    query: HistoryQuery,
    responses: { 200: { description: 'Changes', schema: SettingsHistory }, 401: unauthorized, 404: notFound },
    async handler({ deps, principal, params, query }) {
      await projectFor(deps.db, principal, params.id, 'settings'); // 404 for another organization's project
      const rows = await settingsHistory(deps.db, principal.orgId, params.id, query.limit);
      return { body: { history: rows.map((row) => ({ ...row, id: row.id.toString() })) } };
    },
  }),
];
