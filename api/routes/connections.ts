// Provider connections: a project stores a server's credential once (sealed in the vault), then lists,
// reads (never the secret), rotates and deletes it. Another project's connection is 404.
import {
  createConnection,
  deleteConnection,
  getConnection,
  listConnections,
  rotateConnection,
} from '../../domain/providers/connections';
import { checkCredential } from '../../domain/providers/credential-rules';
import { rewrapConnections } from '../../domain/providers/rewrap-connections';
import { requireServer } from '../../domain/providers/resolve';
import { keyServiceFor } from '../../domain/vault/select';
import { VaultUnavailable } from '../../domain/vault/key-service';
import { ApiError } from '../../domain/errors';
import { ErrorEnvelope } from '../../schema/http/common';
import {
  Connection,
  ConnectionCreate,
  ConnectionDeleted,
  ConnectionIdParams,
  ConnectionList,
  ConnectionListQuery,
  ConnectionRotate,
} from '../../schema/http/connections';
import { SlugParams } from '../../schema/http/providers';
import { presentConnection } from '../presenters/connection';
import { route, type AnyRoute } from '../route';

const tags = ['Connections'];
const notFound = {
  description: "`not_found`: no such connection in the caller's project",
  schema: ErrorEnvelope,
};
const refused = {
  description:
    '`invalid_body`, `credential_invalid`, `invalid_secret_shape`, `path_secret_keys_mismatch`, `no_user_fields`, `fields_not_user_editable`, `not_api_key_server`',
  schema: ErrorEnvelope,
};
const vaultDown = {
  description: '`vault_unavailable`: the credential store failed; nothing was written',
  schema: ErrorEnvelope,
};

export const connectionRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/v1/providers/:slug/connections',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'createConnection',
    summary: 'Connect a catalog server by storing its credential once',
    description:
      'The credential is sealed with envelope encryption bound to the organization, project and connection, and is never returned.',
    params: SlugParams,
    body: ConnectionCreate,
    responses: {
      201: { description: 'The connection (without its secret)', schema: Connection },
      400: refused,
      404: { description: '`server_unknown`', schema: ErrorEnvelope },
      503: vaultDown,
    },
    async handler({ deps, principal, params, body }) {
      const server = await requireServer(deps.db, principal, params.slug);
      const checked = checkCredential(server, principal.environment, body.credentials);
      const row = await createConnection(deps.db, keyServiceFor(deps.config.vault), principal, {
        server,
        environment: principal.environment,
        label: body.label ?? null,
        secrets: checked.secrets,
        settings: checked.settings,
      });
      return { status: 201, body: presentConnection(row) };
    },
  }),
  route({
    method: 'get',
    path: '/v1/connections',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'listConnections',
    summary: "The project's connections, newest first",
    query: ConnectionListQuery,
    responses: {
      200: { description: 'Connections', schema: ConnectionList },
      400: { description: '`invalid_query`', schema: ErrorEnvelope },
    },
    async handler({ deps, principal, query }) {
      return {
        body: { connections: (await listConnections(deps.db, principal, query)).map(presentConnection) },
      };
    },
  }),
  route({
    method: 'get',
    path: '/v1/connections/:id',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'getConnection',
    summary: 'One connection (never its secret)',
    params: ConnectionIdParams,
    responses: { 200: { description: 'The connection', schema: Connection }, 404: notFound },
    async handler({ deps, principal, params }) {
      return { body: presentConnection(await getConnection(deps.db, principal, params.id)) };
    },
  }),
  route({
    method: 'post',
    path: '/v1/connections/:id/rotate',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'rotateConnection',
    summary: "Replace a connection's credential; the old one is gone once this answers",
    params: ConnectionIdParams,
    body: ConnectionRotate,
    responses: {
      200: { description: 'The connection, active again', schema: Connection },
      400: refused,
      404: {
        description: '`not_found`, `server_unknown` (the server left the catalog)',
        schema: ErrorEnvelope,
      },
      409: { description: '`metadata_update_failed`', schema: ErrorEnvelope },
      503: vaultDown,
    },
    async handler({ deps, principal, params, body }) {
      const existing = await getConnection(deps.db, principal, params.id);
      const server = await requireServer(deps.db, principal, existing.provider);
      const checked = checkCredential(server, principal.environment, body.credentials);
      const row = await rotateConnection(
        deps.db,
        keyServiceFor(deps.config.vault),
        principal,
        params.id,
        checked.secrets,
        checked.settings,
      );
      return { body: presentConnection(row) };
    },
  }),
  route({
    method: 'delete',
    path: '/v1/connections/:id',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'deleteConnection',
    summary: 'Delete a connection and its sealed credential (funding sources bound to it go too)',
    params: ConnectionIdParams,
    responses: { 200: { description: 'Deleted', schema: ConnectionDeleted }, 404: notFound },
    async handler({ deps, principal, params }) {
      await deleteConnection(deps.db, principal, params.id);
      return { body: { id: params.id, deleted: true } };
    },
  }),
  route({
    method: 'post',
    path: '/v1/ops/vault/rewrap',
    auth: 'operator',
    scope: null,
    tags: ['Operations'],
    operationId: 'rewrapVaultKeys',
    summary:
      'Re-wrap up to 100 connection data keys under the current key-encryption key; call until remaining is 0',
    responses: { 200: { description: '`{rewrapped, remaining, key_ref}`' }, 503: vaultDown },
    async handler({ deps }) {
      try {
        return { body: await rewrapConnections(deps.db, keyServiceFor(deps.config.vault)) };
      } catch (error) {
        if (error instanceof VaultUnavailable)
          throw new ApiError(
            503,
            'vault_unavailable',
            'The key service is unavailable; nothing more was re-wrapped',
          );
        throw error;
      }
    },
  }),
];
