// Projects of the caller's organization, their settings and settings history.
import { deleteProject, createProject, getProject, listProjects, updateProject } from '../../domain/tenancy/projects';
import { effectiveSettings, patchSettings, readSettings, settingsHistory } from '../../domain/tenancy/settings';
import { ErrorEnvelope } from '../../schema/http/common';
import {
  HistoryQuery, Project, ProjectCreate, ProjectList, ProjectListQuery, ProjectSettingsPatch, ProjectUpdate, SettingsHistory, SettingsView,
  type ProjectCreateBody, type ProjectListQueryValues, type ProjectUpdateBody,
} from '../../schema/http/projects';
import { actorOf } from '../principal';
import { presentProject } from '../presenters/project';
import { route, type AnyRoute } from '../route';

const tags = ['Projects'];
const notFound = { description: 'No such project in the caller\'s organization', schema: ErrorEnvelope };
const badRequest = { description: 'Invalid input', schema: ErrorEnvelope };

export const projectRoutes: AnyRoute[] = [
  route<unknown, ProjectListQueryValues, Record<string, string>, 'key'>({
    method: 'get', path: '/v1/projects', auth: 'key', scope: 'unmapped', tags,
    operationId: 'listProjects', summary: 'List the projects of the caller\'s organization',
    query: ProjectListQuery,
    responses: { 200: { description: 'A page of projects, oldest first', schema: ProjectList }, 400: badRequest },
    async handler({ deps, principal, query }) {
      const page = await listProjects(deps.db, principal.orgId, { isDefault: query.is_default, limit: query.limit, offset: query.offset });
      return { body: { projects: page.projects.map(presentProject), total: page.total, limit: query.limit, offset: query.offset } };
    },
  }),
  route<unknown, unknown, { id: string }, 'key'>({
    method: 'get', path: '/v1/projects/:id', auth: 'key', scope: 'unmapped', tags,
    operationId: 'getProject', summary: 'Retrieve a project',
    responses: { 200: { description: 'The project', schema: Project }, 404: notFound },
    async handler({ deps, principal, params }) {
      return { body: presentProject(await getProject(deps.db, principal.orgId, params.id)) };
    },
  }),
  route<ProjectCreateBody, unknown, Record<string, string>, 'key'>({
    method: 'post', path: '/v1/projects', auth: 'key', scope: 'unmapped', tags,
    operationId: 'createProject', summary: 'Create a project (never the default)',
    body: ProjectCreate,
    responses: {
      201: { description: 'The new project', schema: Project },
      400: { description: '`invalid_body` (details.issues, or details.key for a setting), `slug_invalid`, `slug_reserved`', schema: ErrorEnvelope },
      409: { description: '`slug_conflict`', schema: ErrorEnvelope },
    },
    async handler({ deps, principal, body }) {
      const project = await createProject(deps.db, principal.orgId, {
        name: body.name,
        slug: body.slug,
        environment: body.environment ?? principal.environment,
        settings: body.settings,
      });
      return { status: 201, body: presentProject(project) };
    },
  }),
  route<ProjectUpdateBody, unknown, { id: string }, 'key'>({
    method: 'patch', path: '/v1/projects/:id', auth: 'key', scope: 'unmapped', tags,
    operationId: 'updateProject', summary: 'Rename a project, change its slug, or make it the default',
    body: ProjectUpdate,
    responses: {
      200: { description: 'The updated project', schema: Project },
      400: badRequest, 404: notFound,
      409: { description: '`slug_conflict`', schema: ErrorEnvelope },
    },
    async handler({ deps, principal, params, body }) {
      return { body: presentProject(await updateProject(deps.db, principal.orgId, params.id, body)) };
    },
  }),
  route<unknown, unknown, { id: string }, 'key'>({
    method: 'delete', path: '/v1/projects/:id', auth: 'key', scope: 'unmapped', tags,
    operationId: 'deleteProject', summary: 'Delete a project with its keys, triggers, sessions and connections',
    responses: {
      200: { description: 'Deleted', schema: { type: 'object', required: ['id', 'deleted'], properties: { id: { type: 'string' }, deleted: { const: true } } } },
      404: notFound,
      409: { description: '`cannot_delete_default`, `cannot_delete_last_project`, `cannot_delete_with_consumer_records`', schema: ErrorEnvelope },
    },
    async handler({ deps, principal, params }) {
      await deleteProject(deps.db, principal.orgId, params.id);
      deps.keyCache.evictProject(params.id);
      return { body: { id: params.id, deleted: true } };
    },
  }),
  route<unknown, unknown, { id: string }, 'key'>({
    method: 'get', path: '/v1/projects/:id/settings', auth: 'key', scope: 'projects:settings', tags,
    operationId: 'getProjectSettings', summary: 'Read a project\'s settings, defaults filled in',
    responses: { 200: { description: 'Effective settings and the overrides set on this project', schema: SettingsView }, 404: notFound },
    async handler({ deps, principal, params }) {
      const overrides = await readSettings(deps.db, principal.orgId, params.id);
      return { body: { project_id: params.id, settings: effectiveSettings(overrides), overrides } };
    },
  }),
  route<Record<string, unknown>, unknown, { id: string }, 'key'>({
    method: 'patch', path: '/v1/projects/:id/settings', auth: 'key', scope: 'projects:settings', tags,
    operationId: 'updateProjectSettings', summary: 'Change project settings; every change is recorded in the history',
    body: ProjectSettingsPatch,
    responses: { 200: { description: 'Settings after the change', schema: SettingsView }, 400: badRequest, 404: notFound },
    async handler({ deps, principal, params, body }) {
      const overrides = await patchSettings(deps.db, principal.orgId, params.id, body, actorOf(principal));
      return { body: { project_id: params.id, settings: effectiveSettings(overrides), overrides } };
    },
  }),
  route<unknown, { limit: number }, { id: string }, 'key'>({
    method: 'get', path: '/v1/projects/:id/settings/history', auth: 'key', scope: 'projects:settings', tags,
    operationId: 'listProjectSettingsHistory', summary: 'Settings changes, newest first',
    query: HistoryQuery,
    responses: { 200: { description: 'Changes', schema: SettingsHistory }, 404: notFound },
    async handler({ deps, principal, params, query }) {
      await readSettings(deps.db, principal.orgId, params.id); // 404 for another organization's project
      const rows = await settingsHistory(deps.db, principal.orgId, params.id, query.limit);
      return { body: { history: rows.map((row) => ({ ...row, id: row.id.toString() })) } };
    },
  }),
];
