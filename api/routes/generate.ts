// Generated servers of the caller's project: generate one from an OpenAPI document, list them, review one
// with its tools, edit it and its tools, publish it as a new version, list its versions, archive and
// unarchive it. Once published, until archived, it is a provider of the project (the providers,
// connections, sessions, tool search and proxy routes find it by slug).
// A credential that resolves to no project (the service credential without x-service-project) is a 400
// here, not the flat 500 of other routes.
import { ApiError } from '../../domain/errors';
import {
  archiveGeneratedServer,
  editGeneratedServer,
  editGeneratedTool,
  getGeneratedServer,
  listGeneratedServers,
  listGeneratedTools,
  listGeneratedVersions,
  publishGeneratedServer,
  unarchiveGeneratedServer,
} from '../../domain/generated-servers/servers';
import { snapshotOf } from '../../domain/generated-servers/snapshot';
import { ErrorEnvelope } from '../../schema/http/common';
import {
  GeneratedServerCreate,
  GeneratedServerDetail,
  GeneratedServerEdit,
  GeneratedServerList,
  GeneratedServerParams,
  GeneratedServerVersions,
  GeneratedTool,
  GeneratedToolEdit,
  GeneratedToolParams,
} from '../../schema/http/generate';
import { generateServer } from '../flows/generated-server';
import {
  presentGeneratedServer,
  presentGeneratedServerDetail,
  presentGeneratedTool,
} from '../presenters/generated-server';
import { route, type AnyRoute } from '../route';

const tags = ['Generated servers'];
const noProject = {
  description: '`project_required`: the credential resolves to no project; `invalid_body` / `invalid_params`',
  schema: ErrorEnvelope,
};
const noProjectError = () => new ApiError(400, 'project_required', 'This credential resolves to no project');
const notFound = {
  description: "`not_found`: no such generated server in the caller's project",
  schema: ErrorEnvelope,
};

export const generateRoutes: AnyRoute[] = [
  route({
    method: 'get',
    path: '/v1/generate/servers',
    auth: 'key',
    scope: 'servers:read',
    tags,
    operationId: 'listGeneratedServers',
    summary: "The project's generated tool servers, newest first",
    responses: {
      200: { description: 'The servers', schema: GeneratedServerList },
      400: {
        description: '`project_required`: the credential resolves to no project',
        schema: ErrorEnvelope,
      },
    },
    noProjectError,
    async handler({ deps, principal }) {
      const servers = await listGeneratedServers(deps.db, principal);
      return { body: { servers: servers.map(presentGeneratedServer) } };
    },
  }),
  route({
    method: 'post',
    path: '/v1/generate/servers',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'generateServer',
    summary: 'Generate a draft server from an OpenAPI 3.0 or 3.1 document: one tool per operation',
    description:
      "Send the document (`document`: JSON, or JSON or YAML text) or where to fetch it (`document_url`). Each operation becomes a tool: named from its operationId in snake_case (or from its method and path when it has none; a repeated name gets `_2`), described by its summary and description, taking each parameter as an argument of its own name (`<name>_<in>` when two share a name) and the request body as `body`. Cookie parameters and the header the credential fills are not arguments. The auth comes from `securitySchemes`: an API key in a header or an HTTP bearer token is `api_key`, two header keys required together `two_header`, mutual TLS `cert`, none at all `none`; the first requirement (in document order) the gateway can send is chosen unless `security_scheme` names one. Base URLs come from `servers` (one that says sandbox, staging, test or dev is the test environment's, the first other live's; one server serves both) unless `base_urls` states them. The draft is reviewed with `GET /v1/generate/servers/{id}`, edited, then published. Nothing is stored when the document is refused.",
    body: GeneratedServerCreate,
    responses: {
      201: {
        description: 'The draft with its tools; `Location` names it',
        schema: GeneratedServerDetail,
      },
      400: noProject,
      409: {
        description: '`slug_conflict`: a catalog server, tool server or generated server has the slug',
        schema: ErrorEnvelope,
      },
      422: {
        description:
          '`invalid_document` (details.reason: `not_parsable`, `not_openapi`, `unsupported_version`, `invalid_info`, `invalid_paths`, `invalid_parameter`, `invalid_reference`, `external_reference`, `invalid_schema`, `unknown_security_scheme`, `no_operations`, `too_many_operations`, `too_deep`, `too_large`, `reserved_key`; details.pointer where it applies), `unsupported_security_scheme` (details.schemes: nothing the gateway can send authenticates the calls), `document_unreachable` (details.reason: `invalid_url`, `destination_forbidden` (a live key and a private address), `host_unresolved`, `unreachable`, `timeout`, `too_large`, `status` with details.status)',
        schema: ErrorEnvelope,
      },
    },
    noProjectError,
    async handler({ deps, principal, body }) {
      const { server, tools } = await generateServer(deps, principal, body);
      return {
        status: 201,
        body: presentGeneratedServerDetail(server, tools),
        headers: { Location: `/v1/generate/servers/${server.id}` },
      };
    },
  }),
  route({
    method: 'get',
    path: '/v1/generate/servers/:id',
    auth: 'key',
    scope: 'servers:read',
    tags,
    operationId: 'getGeneratedServer',
    summary: 'Review a generated server: its source, auth, base URLs and every tool',
    params: GeneratedServerParams,
    responses: {
      200: { description: 'The server', schema: GeneratedServerDetail },
      400: noProject,
      404: notFound,
    },
    noProjectError,
    async handler({ deps, principal, params }) {
      const server = await getGeneratedServer(deps.db, principal, params.id);
      return { body: presentGeneratedServerDetail(server, await listGeneratedTools(deps.db, server.id)) };
    },
  }),
  route({
    method: 'patch',
    path: '/v1/generate/servers/:id',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'editGeneratedServer',
    summary: "Edit a generated server's name, description or base URLs",
    description: 'Edits change the draft; sessions keep the published version until the next publish.',
    params: GeneratedServerParams,
    body: GeneratedServerEdit,
    responses: {
      200: { description: 'The server', schema: GeneratedServerDetail },
      400: noProject,
      404: notFound,
    },
    noProjectError,
    async handler({ deps, principal, params, body }) {
      const server = await editGeneratedServer(deps.db, principal, params.id, body);
      return { body: presentGeneratedServerDetail(server, await listGeneratedTools(deps.db, server.id)) };
    },
  }),
  route({
    method: 'patch',
    path: '/v1/generate/servers/:id/tools/:tool',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'editGeneratedTool',
    summary: "Rename a generated server's tool, change its description, or expose or hide it",
    description: 'The tool is named by its current name. Edits change the draft until the next publish.',
    params: GeneratedToolParams,
    body: GeneratedToolEdit,
    responses: {
      200: { description: 'The tool', schema: GeneratedTool },
      400: noProject,
      404: { description: '`not_found` (the server), `tool_not_found`', schema: ErrorEnvelope },
      409: {
        description: '`tool_name_taken`: another tool of the server has the name',
        schema: ErrorEnvelope,
      },
    },
    noProjectError,
    async handler({ deps, principal, params, body }) {
      return {
        body: presentGeneratedTool(await editGeneratedTool(deps.db, principal, params.id, params.tool, body)),
      };
    },
  }),
  route({
    method: 'post',
    path: '/v1/generate/servers/:id/publish',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'publishGeneratedServer',
    summary: 'Publish the draft as the next version: the provider sessions use from now on',
    description:
      'Each publish writes a new immutable version (1, 2, …) of the server and its exposed tools; the newest serves. Once published the server is a provider of this project only: connect it (`POST /v1/providers/{slug}/connections`), check it (`POST /v1/providers/{slug}/verify-connection`), open sessions with it and call its tools (`<slug>.<tool>`) over REST or MCP, or send raw requests with `proxy_execute`. Other projects get 404.',
    params: GeneratedServerParams,
    responses: {
      200: { description: 'The server at its new version', schema: GeneratedServerDetail },
      400: noProject,
      404: notFound,
      409: {
        description:
          '`no_exposed_tools`; `not_publishable` (a server not generated from a document); `server_archived` (unarchive it first)',
        schema: ErrorEnvelope,
      },
    },
    noProjectError,
    async handler({ deps, principal, params }) {
      const server = await publishGeneratedServer(deps.db, principal, params.id, snapshotOf);
      return { body: presentGeneratedServerDetail(server, await listGeneratedTools(deps.db, server.id)) };
    },
  }),
  route({
    method: 'get',
    path: '/v1/generate/servers/:id/versions',
    auth: 'key',
    scope: 'servers:read',
    tags,
    operationId: 'listGeneratedServerVersions',
    summary: "A generated server's published versions, newest first",
    params: GeneratedServerParams,
    responses: {
      200: { description: 'The versions', schema: GeneratedServerVersions },
      400: noProject,
      404: notFound,
    },
    noProjectError,
    async handler({ deps, principal, params }) {
      return { body: { versions: await listGeneratedVersions(deps.db, principal, params.id) } };
    },
  }),
  route({
    method: 'post',
    path: '/v1/generate/servers/:id/archive',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'archiveGeneratedServer',
    summary: 'Retire a generated server as a provider; it stays readable with `status: archived`',
    description:
      "As archiving a product: the server, its versions and its slug stay (no other server takes the slug), it is listed and read with `status: archived`, and it can be edited and unarchived, but not published. Its tools leave sessions (REST and MCP listings), tool search and the providers list; the providers routes, new sessions, tool calls and `proxy_execute` on it answer 404 `server_unknown`, also in sessions opened before. The project's connections to it are kept, readable and deletable, but unusable until it is unarchived. Archiving an archived server changes nothing.",
    params: GeneratedServerParams,
    responses: {
      200: { description: 'The archived server', schema: GeneratedServerDetail },
      400: noProject,
      404: notFound,
    },
    noProjectError,
    async handler({ deps, principal, params }) {
      const server = await archiveGeneratedServer(deps.db, principal, params.id);
      return { body: presentGeneratedServerDetail(server, await listGeneratedTools(deps.db, server.id)) };
    },
  }),
  route({
    method: 'post',
    path: '/v1/generate/servers/:id/unarchive',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'unarchiveGeneratedServer',
    summary: 'Serve an archived generated server again',
    description:
      'It returns to `published`, serving its newest published version with the connections it had (or to `draft` when it was never published); sessions that name it call its tools again. Unarchiving a server that is not archived changes nothing.',
    params: GeneratedServerParams,
    responses: {
      200: { description: 'The server, published or draft again', schema: GeneratedServerDetail },
      400: noProject,
      404: notFound,
    },
    noProjectError,
    async handler({ deps, principal, params }) {
      const server = await unarchiveGeneratedServer(deps.db, principal, params.id);
      return { body: presentGeneratedServerDetail(server, await listGeneratedTools(deps.db, server.id)) };
    },
  }),
];
