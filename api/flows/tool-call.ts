// The one tool-call path: REST `POST /v1/sessions/{id}/tool-calls` and MCP `tools/call` are two doors to
// `callTool`. In order: the session must be open and within its limits → the tool must be one of its
// servers' → arguments are checked against the tool's JSON Schema → a paying tool runs as an attempt of
// the attempt engine (wallet execute's own path: policy, approval hold, ledger, idempotent by attempt_id),
// a catalog provider's money tool a wallet spend attempt paying through that tool (provider-money-call.ts)
// → any other tool passes the policy gate (deny, or hold for a person with the exact call to replay) →
// dispatch (provider through the proxy core with the vault credential, or the gateway's own read) →
// the call recorded with outcome and timing, and its tool_call.* event → a provider's failure answered
// as the error providers/provider-failure.ts names for it (502 provider_error, 424 not_connected, …).
import { ApiError } from '../../domain/errors';
import { catalogServer } from '../../domain/providers/catalog';
import type { SealedConnection } from '../../domain/providers/connections';
import { sortableId } from '../../domain/ids';
import { flatDenial } from '../../domain/policies/denial';
import type { Rule } from '../../domain/policies/evaluate';
import { enforceCallLimits } from '../../domain/sessions/limits';
import {
  getSession,
  getSessionForCall,
  requireActive,
  type SessionRow,
} from '../../domain/sessions/sessions';
import {
  finishToolCall,
  finishToolCallInActiveSession,
  openToolCall,
  toolCallId,
  type NewToolCall,
  type ToolCallOutcome,
} from '../../domain/sessions/tool-calls';
import { runGatewayOperation } from '../../domain/tools/gateway-operations';
import type { HeldToolCall } from '../../contracts/approval-kinds';
import { gateToolCall, quickToolGate, TOOL_CALL_KIND } from '../../domain/tools/gate';
import { findSessionTool } from '../../domain/tools/registry';
import { ownArchivedGenerated } from '../../domain/generated-servers/provider-lookup';
import type { ToolSpec } from '../../domain/tools/tool-spec';
import { dispatchProviderTool } from '../../providers/tools/dispatch';
import { gatewayPorts } from '../../providers/tools/gateway-ports';
import { asToolOutcome, callTenantTool } from '../../providers/mcp-client/dispatch';
import { failureOfUpstream, providerFailureError } from '../../providers/provider-failure';
import { startApprovalHold } from '../../orchestration/approvals';
import type { AppDeps } from '../deps';
import type { Principal } from '../principal';
import type { Reply } from '../route';
import type { WalletExecuteBody } from '../../schema/http/execute';
import type { SpendBodyValues } from '../../schema/http/consumer-payments';
import { executeConsumerSpend } from './consumer-spend';
import type { ToolCallAnswer } from './tool-call-answer';
import { requireLinkWriter } from './payment-links';
import { executeWalletPayment } from './wallet-execute';
import { paidTenantCall } from './tool-charge';
import { compile, check } from '../validation';
import { recordAttemptCall } from './attempt-call';
import { providerMoneyCall } from './provider-money-call';
import { runCardTool } from './card-tools';

export interface ToolCallRequest {
  tool: string;
  arguments: Record<string, unknown>;
  /** The gateway's origin as the call reached it: where a card's issuer calls back. */
  origin: string;
}

const scopeOf = (p: Principal) => ({ orgId: p.orgId, projectId: p.projectId, environment: p.environment });

/** Arguments are checked as a request body is: the tool's schema, unknown fields refused, paths under /arguments. */
function checkArguments(tool: ToolSpec, args: Record<string, unknown>): void {
  try {
    check(compile(tool.inputSchema, 'body'), args, 'body');
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const issues = ((error.details?.issues ?? []) as Array<{ path: string }>).map((issue) => ({
      ...issue,
      path: `/arguments${issue.path === '/' ? '' : issue.path}`,
    }));
    throw new ApiError(
      400,
      'invalid_body',
      `The arguments do not match ${tool.name}'s input schema: ${issues[0]?.path ?? '/arguments'} is invalid`,
      { issues, tool: tool.name },
    );
  }
}

/**
 * `session` is the session's id, or its row when the caller has just read it for this very request
 * (the MCP route reads it to find the session's servers), which saves reading it twice.
 */
export async function callTool(
  deps: AppDeps,
  principal: Principal,
  session: string | SessionRow,
  request: ToolCallRequest,
  requestId: string,
): Promise<ToolCallAnswer> {
  return callInSession(
    deps,
    principal,
    typeof session === 'string'
      ? await getSessionForCall(deps.db, principal.orgId, principal.projectId, session)
      : session,
    request,
    requestId,
  );
}

async function callInSession(
  deps: AppDeps,
  principal: Principal,
  session: SessionRow,
  request: ToolCallRequest,
  requestId: string,
): Promise<ToolCallAnswer> {
  requireActive(session);
  const tool = await findSessionTool(deps.db, principal.environment, session.servers, request.tool);
  if (!tool) {
    // A session that listed an archived generated server's tools learns the server is gone, not the tool.
    const slug = request.tool.slice(0, Math.max(0, request.tool.indexOf('.')));
    if (session.servers.includes(slug) && (await ownArchivedGenerated(deps.db, principal, slug)))
      throw providerFailureError({ kind: 'server_unknown', serverId: slug });
    throw new ApiError(404, 'tool_not_found', `The session's servers publish no tool "${request.tool}"`, {
      tool: request.tool,
      servers: session.servers,
    });
  }
  checkArguments(tool, request.arguments);
  // Links are the account's own writes: the REST route's rule holds for its tool too.
  if (tool.dispatch.kind === 'gateway' && tool.dispatch.operation === 'payment_link_create')
    await requireLinkWriter(deps, principal);
  // A gated call's row is opened by the statement that counts it (paying calls open theirs by attempt id).
  const gated =
    !(tool.movesMoney && (tool.dispatch.kind === 'tenant' || tool.dispatch.kind === 'provider')) &&
    !tool.attempt;
  const { rules, connections, opened } = await enforceCallLimits(
    deps.db,
    session,
    connectedServers(session),
    gated ? newGatedCall(principal, session, tool, request.arguments) : undefined,
  );
  // A tenant's priced tool is a paid call of its own workflow; its free tools pass the gate like any other.
  if (tool.movesMoney && tool.dispatch.kind === 'tenant')
    return upstreamFailureAnswered(
      await paidTenantCall(deps, principal, session, tool, request.arguments, requestId),
      tool.serverId,
    );
  // A catalog provider's money tool is a wallet spend attempt that pays through the provider's tool.
  if (tool.movesMoney && tool.dispatch.kind === 'provider')
    return providerMoneyCall(deps, principal, session, tool, request.arguments, requestId);
  if (tool.attempt) return payingCall(deps, principal, session, tool, request.arguments, requestId);
  // Opened whenever the call is within the limit and its session open, which enforceCallLimits has just checked.
  if (opened === null) throw new Error('a gated tool call was counted without its row');
  return gatedCall(deps, principal, session, tool, request, { rules, connections, seq: opened });
}

function newGatedCall(
  principal: Principal,
  session: SessionRow,
  tool: ToolSpec,
  args: Record<string, unknown>,
): NewToolCall {
  return {
    orgId: principal.orgId,
    projectId: principal.projectId,
    sessionId: session.id,
    serverId: tool.serverId,
    toolName: tool.name,
    input: args,
    attemptId: null,
    routing:
      tool.dispatch.kind === 'provider'
        ? { provider: tool.serverId }
        : tool.dispatch.kind === 'tenant'
          ? { tool_server_id: tool.dispatch.server.id }
          : { gateway: tool.name },
  };
}

/** The session's catalog servers that take a credential: their connections are read with the call's count. */
const connectedServers = (session: SessionRow): string[] =>
  session.servers.filter((id) => {
    const server = catalogServer(id);
    return server !== undefined && server.auth_type !== 'none';
  });

/**
 * A paid tenant call its upstream failed (recorded under the upstream's `upstream_*` code, its hold
 * released) is a provider failure, answered as catalog providers' are: 502 `provider_error`.
 */
function upstreamFailureAnswered(answer: ToolCallAnswer, serverId: string): ToolCallAnswer {
  const { call } = answer;
  if (call.status !== 'error' || !call.error_code?.startsWith('upstream_')) return answer;
  const stored = (call.output ?? {}) as { failure?: { message?: string }; output?: unknown };
  const refusal = providerFailureError(
    failureOfUpstream(serverId, call.error_code, stored.failure?.message ?? call.error_code, stored.output),
  );
  throw new ApiError(refusal.status, refusal.code, refusal.message, {
    ...refusal.details,
    tool_call_id: toolCallId(call),
  });
}

/**
 * A paying tool is an attempt of the attempt engine through its HTTP operation's own function (wallet
 * execute or consumer spend), so policy, holds, caps and replays are the engine's.
 */
async function payingCall(
  deps: AppDeps,
  principal: Principal,
  session: SessionRow,
  tool: ToolSpec,
  args: Record<string, unknown>,
  requestId: string,
): Promise<ToolCallAnswer> {
  const engine = tool.dispatch.kind === 'gateway' ? tool.dispatch.operation : null;
  const { wallet_id: walletId, ...rest } = args as { wallet_id?: string } & Record<string, unknown>;
  const body = { ...rest, attempt_id: (rest.attempt_id as string | undefined) ?? sortableId('att') };
  const { row, created } = await openToolCall(deps.db, {
    orgId: principal.orgId,
    projectId: principal.projectId,
    sessionId: session.id,
    serverId: tool.serverId,
    toolName: tool.name,
    input: engine === 'wallet_execute' ? { wallet_id: walletId, ...body } : body,
    attemptId: body.attempt_id,
    routing: engine === 'wallet_execute' ? { engine, wallet_id: walletId } : { engine },
  });
  const run = (): Promise<Reply> => {
    if (engine === 'wallet_execute')
      return executeWalletPayment(deps, principal, walletId!, body as WalletExecuteBody, requestId);
    if (engine === 'consumer_spend')
      return executeConsumerSpend(deps, principal, body as SpendBodyValues, rest.mandate, requestId);
    throw new Error(`${tool.name} moves money but names no attempt engine`);
  };
  return recordAttemptCall(deps, principal, { row, created }, run);
}

async function gatedCall(
  deps: AppDeps,
  principal: Principal,
  session: SessionRow,
  tool: ToolSpec,
  request: ToolCallRequest,
  counted: { rules: Rule[]; connections: Map<string, SealedConnection>; seq: bigint },
): Promise<ToolCallAnswer> {
  const args = request.arguments;
  const scope = scopeOf(principal);
  const { connections, seq } = counted;
  const row = { seq };
  // The evaluation row of a quick gate rides the statement that finishes the call.
  const quick = quickToolGate(scope, session.agent_id, tool.name, counted.rules);
  const held: HeldToolCall = {
    sessionId: session.id,
    serverId: tool.serverId,
    toolName: tool.name,
    arguments: args,
    heldCallId: toolCallId(row),
    providerTool:
      tool.dispatch.kind === 'provider'
        ? tool.dispatch.tool.name
        : tool.dispatch.kind === 'tenant'
          ? tool.dispatch.tool.tool_name
          : tool.name,
  };
  const gate = quick?.gate ?? (await gateToolCall(deps.db, scope, session.agent_id, held));
  const evaluation = quick?.record;
  if (gate.kind === 'deny') {
    const call = await finishToolCall(
      deps.db,
      scope,
      row.seq,
      { ok: false, output: { error: { code: gate.denial.reason } }, errorCode: gate.denial.reason },
      evaluation,
    );
    return { status: 403, call, denial: { ...flatDenial(gate.denial), tool_call_id: toolCallId(call) } };
  }
  if (gate.kind === 'hold') {
    await startApprovalHold(deps.temporal, {
      approvalId: gate.approval.id,
      orgId: principal.orgId,
      projectId: principal.projectId,
      environment: principal.environment,
      kind: TOOL_CALL_KIND,
      payload: { ...held },
      expiresAt: gate.approval.expires_at,
    });
    const approval = { id: gate.approval.id, expires_at: gate.approval.expires_at };
    const call = await finishToolCall(deps.db, scope, row.seq, {
      ok: false,
      output: { error: { code: 'approval_required', approval_id: approval.id } },
      errorCode: 'approval_required',
      approvalId: approval.id,
    });
    return {
      status: 403,
      call,
      denial: { ...flatDenial(gate.denial, approval), tool_call_id: toolCallId(call) },
    };
  }
  let outcome: ToolCallOutcome & { refusal?: ApiError; shown?: Record<string, unknown> };
  try {
    outcome = await dispatch(deps, principal, tool, request, connections);
  } catch (error) {
    // The call ends recorded either way: a refusal under its own code, anything unforeseen as internal_error.
    const code = error instanceof ApiError ? error.code : 'internal_error';
    await finishToolCall(
      deps.db,
      scope,
      row.seq,
      {
        ok: false,
        output: { error: { code, ...(error instanceof ApiError ? { message: error.message } : {}) } },
        errorCode: code,
      },
      evaluation,
    );
    throw error;
  }
  // A key revoked while the call was in flight ended the session: the call fails and its answer is withheld.
  const call = await finishToolCallInActiveSession(deps.db, scope, row.seq, outcome, evaluation);
  if (!call) {
    const now = await getSession(deps.db, principal.orgId, principal.projectId, session.id);
    await finishToolCall(deps.db, scope, row.seq, {
      ok: false,
      output: { error: { code: 'session_closed', close_reason: now.close_reason } },
      errorCode: 'session_closed',
    });
    requireActive(now);
    throw new Error('a tool call could not finish in its active session');
  }
  // A provider's failure is recorded (with its tool_call.failed event), then answered as the error it is.
  if (outcome.refusal) {
    const { status, code, message, details, headers } = outcome.refusal;
    throw new ApiError(status, code, message, { ...details, tool_call_id: toolCallId(call) }, headers);
  }
  // What is answered once and kept nowhere (a card's display link) reaches the caller, not the record.
  return { status: 200, call: outcome.shown ? { ...call, output: outcome.shown } : call };
}

async function dispatch(
  deps: AppDeps,
  principal: Principal,
  tool: ToolSpec,
  request: ToolCallRequest,
  connections: Map<string, SealedConnection>,
): Promise<ToolCallOutcome & { refusal?: ApiError; shown?: Record<string, unknown> }> {
  const args = request.arguments;
  if (tool.dispatch.kind === 'cards')
    return runCardTool(deps, principal, tool.dispatch.operation, args, request.origin);
  if (tool.dispatch.kind === 'provider') {
    return dispatchProviderTool(deps, {
      tenant: { orgId: principal.orgId, projectId: principal.projectId },
      environment: principal.environment,
      serverId: tool.serverId,
      tool: tool.dispatch.tool.name,
      arguments: args,
      // Read with the call's count a moment ago; absent (none stored, or a generated server) it is read there.
      connection: connections.get(tool.serverId) ?? (catalogServer(tool.serverId) ? null : undefined),
    });
  }
  if (tool.dispatch.kind === 'tenant') {
    return asToolOutcome(
      await callTenantTool(deps, {
        serverId: tool.dispatch.server.id,
        upstreamUrl: tool.dispatch.server.upstream_url,
        environment: principal.environment,
        tool: tool.dispatch.tool.tool_name,
        arguments: args,
      }),
      tool.serverId,
    );
  }
  return runGatewayOperation(
    deps.db,
    principal,
    tool.dispatch.operation,
    args,
    gatewayPorts(deps.config, principal.environment),
  );
}
