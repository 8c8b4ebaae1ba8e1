// The servers a session can open, and sessions themselves: open (within the project's quota), list
// newest first, retrieve, list their tools, close. A session remembers the key it was opened with, so
// revoking that key ends it.
import { withinSessionQuota } from '../../domain/sessions/limits';
import { closeSession, createSession, getSession, listSessions } from '../../domain/sessions/sessions';
import { resolveSessionTools } from '../../domain/tools/registry';
import { openableServers, requireOpenable } from '../../domain/tools/servers';
import { ErrorEnvelope } from '../../schema/http/common';
import {
  QuotaExceeded,
  ServerList,
  Session,
  SessionCreate,
  SessionList,
  SessionListQuery,
  SessionParams,
  ToolList,
} from '../../schema/http/sessions';
import { presentServer, presentSession, presentTool } from '../presenters/session';
import { route, type AnyRoute } from '../route';

const tags = ['Sessions'];
const notFound = {
  description: "`not_found`: no such session in the caller's project",
  schema: ErrorEnvelope,
};
const badRequest = {
  description: '`invalid_body` / `invalid_query` / `invalid_params` with details.issues',
  schema: ErrorEnvelope,
};

export const sessionRoutes: AnyRoute[] = [
  route({
    method: 'get',
    path: '/v1/servers',
    auth: 'key',
    scope: 'servers:read',
    tags,
    operationId: 'listServers',
    summary: 'List the servers a session can open, with their tools',
    description:
      "The gateway's own tools (server `gateway`), its agent cards (server `cards`: `cards.create`, `cards.list`, `cards.get`, `cards.freeze`, `cards.unfreeze`, `cards.close`, `cards.display`, `cards.authorizations`, the `/v1/cards` operations with their request schemas and refusals) and every catalog provider the project has connected. Provider tools that move money are not published yet; `wallet.execute` is the paying tool.",
    responses: { 200: { description: 'Every openable server', schema: ServerList } },
    async handler({ deps, principal }) {
      const servers = await openableServers(deps.db, principal);
      return { body: { servers: servers.map(presentServer), has_more: false } };
    },
  }),
  route({
    method: 'post',
    path: '/v1/sessions',
    auth: 'key',
    scope: 'sessions:create',
    tags,
    operationId: 'createSession',
    summary: 'Open a session on a set of servers',
    body: SessionCreate,
    responses: {
      201: { description: 'The open session', schema: Session },
      400: { description: '`invalid_body`', schema: ErrorEnvelope },
      403: {
        description: 'Flat `quota_exceeded`: the project holds `session_max_active` open sessions',
        schema: QuotaExceeded,
      },
      404: {
        description:
          '`server_unknown`: no server of the catalog or of a published tool server has that id (details.server_ids)',
        schema: ErrorEnvelope,
      },
      424: {
        description:
          '`not_connected`: a provider in `servers` has no active connection (details.server_ids, details.hint: the route that connects the first)',
        schema: ErrorEnvelope,
      },
    },
    async handler({ deps, principal, body }) {
      const servers = await requireOpenable(deps.db, principal, body.servers);
      const row = await withinSessionQuota(deps.db, principal.orgId, principal.projectId, (tx) =>
        createSession(tx, principal, {
          servers,
          agentId: body.agent_id ?? null,
          metadata: body.metadata ?? {},
        }),
      );
      return { status: 201, body: presentSession(row) };
    },
  }),
  route({
    method: 'get',
    path: '/v1/sessions',
    auth: 'key',
    scope: 'sessions:read',
    tags,
    operationId: 'listSessions',
    summary: "List the project's sessions, newest first",
    query: SessionListQuery,
    responses: { 200: { description: 'A page of sessions', schema: SessionList }, 400: badRequest },
    async handler({ deps, principal, query }) {
      const rows = await listSessions(deps.db, principal.orgId, principal.projectId, {
        status: query.status,
        limit: query.limit + 1,
        startingAfter: query.starting_after,
      });
      return {
        body: {
          sessions: rows.slice(0, query.limit).map(presentSession),
          has_more: rows.length > query.limit,
        },
      };
    },
  }),
  route({
    method: 'get',
    path: '/v1/sessions/:id',
    auth: 'key',
    scope: 'sessions:read',
    tags,
    operationId: 'getSession',
    summary: 'Retrieve a session',
    params: SessionParams,
    responses: { 200: { description: 'The session', schema: Session }, 400: badRequest, 404: notFound },
    async handler({ deps, principal, params }) {
      return {
        body: presentSession(await getSession(deps.db, principal.orgId, principal.projectId, params.id)),
      };
    },
  }),
  route({
    method: 'get',
    path: '/v1/sessions/:id/tools',
    auth: 'key',
    scope: 'sessions:read',
    tags,
    operationId: 'listSessionTools',
    summary: 'List the tools a session can call, with their input schemas',
    params: SessionParams,
    responses: {
      200: { description: "The session's tools", schema: ToolList },
      400: badRequest,
      404: notFound,
    },
    async handler({ deps, principal, params }) {
      const session = await getSession(deps.db, principal.orgId, principal.projectId, params.id);
      const tools = await resolveSessionTools(deps.db, principal.environment, session.servers);
      return { body: { tools: tools.map(presentTool), has_more: false } };
    },
  }),
  route({
    method: 'post',
    path: '/v1/sessions/:id/close',
    auth: 'key',
    scope: 'sessions:create',
    tags,
    operationId: 'closeSession',
    summary: 'Close a session; its tools can no longer be called',
    description: 'Idempotent: closing a closed session answers it as it stands.',
    params: SessionParams,
    responses: {
      200: { description: 'The closed session', schema: Session },
      400: badRequest,
      404: notFound,
    },
    async handler({ deps, principal, params }) {
      return {
        body: presentSession(await closeSession(deps.db, principal.orgId, principal.projectId, params.id)),
      };
    },
  }),
];
