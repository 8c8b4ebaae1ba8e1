// A session's tool calls over REST: make one (the same path MCP's tools/call takes, api/flows/tool-call.ts),
// list them newest first, read one, and finalize one left running (its caller gave up on it).
import { getSession } from '../../domain/sessions/sessions';
import { ApiError } from '../../domain/errors';
import { finishToolCall, getToolCall, listToolCalls } from '../../domain/sessions/tool-calls';
import { ErrorEnvelope } from '../../schema/http/common';
import { GatewayPaymentResult } from '../../schema/http/execute';
import { PolicyDenial } from '../../schema/http/policies';
import {
  RateLimited,
  SessionParams,
  ToolCall,
  ToolCallCreate,
  ToolCallFinalize,
  ToolCallList,
  ToolCallListQuery,
  ToolCallParams,
} from '../../schema/http/sessions';
import { callTool } from '../flows/tool-call';
import { presentToolCall } from '../presenters/session';
import { publicOrigin } from '../public-origin';
import { route, type AnyRoute } from '../route';

const tags = ['Sessions'];
const badRequest = {
  description: '`invalid_body` / `invalid_query` / `invalid_params` with details.issues',
  schema: ErrorEnvelope,
};

export const toolCallRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/v1/sessions/:id/tool-calls',
    auth: 'key',
    scope: 'tools:execute',
    tags,
    operationId: 'createToolCall',
    summary: 'Call a tool of the session: validated, policy-gated, dispatched and recorded',
    description:
      "The arguments are checked against the tool's input schema, then policy rules run with the tool's name as their tool. A provider tool is sent to the provider with the project's stored credential; `wallet.execute` and `consumer_payments.execute` run as attempts of their engines (idempotent by `arguments.attempt_id`, a replay carries `Idempotent-Replayed: true`); `wallet.transfer` is one ledger transaction, idempotent by `arguments.external_ref`. The call is recorded either way, with its `tool_call.succeeded` or `tool_call.failed` event: 200 carries a call that ran (`status` `success`, or `error` for a refusal of the gateway's own tools). A catalog provider that fails answers 502 `provider_error` (retriable; details.reason `provider_status`, `credential_rejected`, `unreachable`, `timeout`, `response_too_large`, with the provider's `status`, `provider_message` and `provider_response` when it answered), and so does a tenant tool server whose upstream fails the call, free or priced (details.reason the call's recorded `upstream_*` code: `upstream_tool_error` when the tool answered an error, `upstream_error`, `upstream_auth_refused`, `upstream_timed_out`, `upstream_unreachable`, `upstream_not_mcp`, `upstream_outcome_unknown`, or `upstream_failed` for an unanswered priced call resolved as failed; details.provider_message, and details.provider_response with the tool's own error output; a priced call's hold is released; an upstream host resolving to a loopback, private or reserved address is 403 `proxy_destination_forbidden`), a provider without an active connection 424 `not_connected` (details.hint names the route that connects it), each with details.tool_call_id of the recorded call. A rule that denies or holds the call answers the flat policy denial with `tool_call_id`; a held call is made once when a person approves it (poll `approvals.status` or `GET /v1/approvals/{id}/status`).",
    params: SessionParams,
    body: ToolCallCreate,
    responses: {
      200: { description: 'The recorded call', schema: ToolCall },
      400: {
        description:
          "`invalid_body`: the body, or the arguments against the tool's schema (details.issues under `/arguments`)",
        schema: ErrorEnvelope,
      },
      403: {
        description:
          "The flat policy denial `{reason, ruleType, ruleId}` (plus `approval_id`, `expires_at` when held) with `tool_call_id`; for `wallet.execute` merged with its GatewayPaymentResult. `proxy_destination_forbidden` in the envelope: live mode, the provider's host resolves to a loopback, private or reserved address",
        schema: {
          anyOf: [PolicyDenial, { allOf: [PolicyDenial, GatewayPaymentResult] }, ErrorEnvelope],
        },
      },
      404: {
        description:
          '`not_found` (session, or the wallet of `wallet.execute`), `tool_not_found` (no server of the session publishes it), `server_unknown` (the server left the catalog, or is a generated server of the project archived since the session opened)',
        schema: ErrorEnvelope,
      },
      409: {
        description:
          '`session_closed` (details.close_reason, `key_revoked` when its key was revoked, also for a call in flight at the revocation), `attempt_id_conflict`, `attempt_in_progress`, `wallet_not_active`',
        schema: ErrorEnvelope,
      },
      424: {
        description:
          '`not_connected`: the provider has no active connection in this project (details.server_id, details.hint)',
        schema: ErrorEnvelope,
      },
      429: {
        description:
          'Flat `rate_limited` with `Retry-After`: the session made `session_tool_calls_per_minute` calls this minute',
        schema: RateLimited,
      },
      502: {
        description:
          "`provider_error`, retriable: the provider, or a tenant tool server's upstream, failed the call (details.reason, details.status and details.provider_message when it answered, details.tool_call_id); the stored credential never appears",
        schema: ErrorEnvelope,
      },
      503: {
        description: '`endpoint_missing`: no endpoint for the environment; `vault_unavailable`',
        schema: ErrorEnvelope,
      },
    },
    async handler({ deps, ctx, principal, params, body, requestId }) {
      const answer = await callTool(
        deps,
        principal,
        params.id,
        { tool: body.tool, arguments: body.arguments, origin: publicOrigin(deps.config, ctx) },
        requestId,
      );
      return {
        status: answer.status,
        body: answer.denial ?? presentToolCall(answer.call),
        headers: answer.headers,
      };
    },
  }),
  route({
    method: 'get',
    path: '/v1/sessions/:id/tool-calls',
    auth: 'key',
    scope: 'sessions:read',
    tags,
    operationId: 'listToolCalls',
    summary: "List a session's tool calls, newest first",
    params: SessionParams,
    query: ToolCallListQuery,
    responses: {
      200: { description: 'A page of calls', schema: ToolCallList },
      400: badRequest,
      404: { description: '`not_found`', schema: ErrorEnvelope },
    },
    async handler({ deps, principal, params, query }) {
      const session = await getSession(deps.db, principal.orgId, principal.projectId, params.id);
      const rows = await listToolCalls(deps.db, principal.orgId, principal.projectId, session.id, {
        limit: query.limit + 1,
        startingAfter: query.starting_after,
      });
      return {
        body: {
          tool_calls: rows.slice(0, query.limit).map(presentToolCall),
          has_more: rows.length > query.limit,
        },
      };
    },
  }),
  route({
    method: 'get',
    path: '/v1/sessions/:id/tool-calls/:callId',
    auth: 'key',
    scope: 'sessions:read',
    tags,
    operationId: 'getToolCall',
    summary: 'Retrieve one tool call of a session',
    params: ToolCallParams,
    responses: {
      200: { description: 'The call', schema: ToolCall },
      400: badRequest,
      404: { description: '`not_found`', schema: ErrorEnvelope },
    },
    async handler({ deps, principal, params }) {
      return {
        body: presentToolCall(
          await getToolCall(deps.db, principal.orgId, principal.projectId, params.id, params.callId),
        ),
      };
    },
  }),
  route({
    method: 'post',
    path: '/v1/sessions/:id/tool-calls/:callId/finalize',
    auth: 'key',
    scope: 'tools:execute',
    tags,
    operationId: 'finalizeToolCall',
    summary: 'Finalize a call still running: record it failed with `abandoned`',
    description:
      'For a call whose answer will never come (the caller stopped waiting, or the process making it went away): it is recorded `error` with `error_code` `abandoned` and its `tool_call.failed` event. An answer arriving later changes nothing. A paying call is never abandoned this way: present its `attempt_id` again instead.',
    params: ToolCallParams,
    body: ToolCallFinalize,
    responses: {
      200: { description: 'The finalized call', schema: ToolCall },
      400: badRequest,
      404: { description: '`not_found`', schema: ErrorEnvelope },
      409: {
        description:
          '`tool_call_finished` (details.status), `tool_call_pays` (a paying call: present its attempt_id again)',
        schema: ErrorEnvelope,
      },
    },
    async handler({ deps, principal, params, body }) {
      const call = await getToolCall(deps.db, principal.orgId, principal.projectId, params.id, params.callId);
      if (call.status !== 'running')
        throw new ApiError(409, 'tool_call_finished', `The call already ended with ${call.status}`, {
          status: call.status,
        });
      // Its attempt decides a paying call's outcome, not the caller's patience.
      if (call.routing.engine === 'wallet_execute')
        throw new ApiError(
          409,
          'tool_call_pays',
          'A paying call ends with its attempt; present the same attempt_id again for its outcome',
          { attempt_id: call.attempt_id },
        );
      const done = await finishToolCall(
        deps.db,
        { orgId: principal.orgId, projectId: principal.projectId, environment: principal.environment },
        call.seq,
        {
          ok: false,
          errorCode: 'abandoned',
          output: { error: { code: 'abandoned', ...(body.reason ? { reason: body.reason } : {}) } },
        },
      );
      if (done.error_code !== 'abandoned')
        throw new ApiError(409, 'tool_call_finished', `The call already ended with ${done.status}`, {
          status: done.status,
        });
      return { body: presentToolCall(done) };
    },
  }),
];
