// The activity behind an approved tool call's replay: opens the call's row (keyed by the approval, so a
// retried activity finds it), makes it (the gateway's own operation, or the provider's tool with the vault
// credential), and finishes the row with its event. A row already finished is answered as it stands.
import { finishToolCall, openToolCall, toolCallId } from '../domain/sessions/tool-calls';
import type { HeldToolCall } from '../domain/tools/gate';
import { gatewayOperationOf, runGatewayOperation } from '../domain/tools/gateway-operations';
import { GATEWAY_SERVER_ID } from '../domain/tools/gateway-tools';
import { dispatchProviderTool } from '../providers/tools/dispatch';
import { gatewayPorts } from '../providers/tools/gateway-ports';
import type { ActivityDeps } from './deps';

export interface ToolCallReplayInput {
  approvalId: string;
  orgId: string;
  projectId: string;
  environment: 'live' | 'test';
  call: HeldToolCall;
}

export interface ToolCallReplayResult {
  ok: boolean;
  tool_call_id: string;
  error_code: string | null;
  output: unknown;
}

export function toolCallActivities(deps: ActivityDeps) {
  return {
    async replayToolCallActivity(input: ToolCallReplayInput): Promise<ToolCallReplayResult> {
      const scope = { orgId: input.orgId, projectId: input.projectId, environment: input.environment };
      const { row } = await openToolCall(deps.db, {
        orgId: input.orgId,
        projectId: input.projectId,
        sessionId: input.call.sessionId,
        serverId: input.call.serverId,
        toolName: input.call.toolName,
        input: input.call.arguments,
        attemptId: `approval:${input.approvalId}`,
        routing: { approval_id: input.approvalId, held_call_id: input.call.heldCallId },
      });
      if (row.status !== 'running')
        return {
          ok: row.status === 'success',
          tool_call_id: toolCallId(row),
          error_code: row.error_code,
          output: row.output,
        };
      // The gateway's own tools are made here; every other held call goes to its provider.
      const own =
        input.call.serverId === GATEWAY_SERVER_ID ? gatewayOperationOf(input.call.toolName) : undefined;
      const outcome = own
        ? await runGatewayOperation(
            deps.db,
            input,
            own,
            input.call.arguments,
            gatewayPorts(deps.config, input.environment),
          )
        : await dispatchProviderTool(deps, {
            tenant: { orgId: input.orgId, projectId: input.projectId },
            environment: input.environment,
            serverId: input.call.serverId,
            tool: input.call.providerTool,
            arguments: input.call.arguments,
          });
      const done = await finishToolCall(deps.db, scope, row.seq, {
        ...outcome,
        approvalId: input.approvalId,
      });
      return {
        ok: done.status === 'success',
        tool_call_id: toolCallId(done),
        error_code: done.error_code,
        output: done.output,
      };
    },
  };
}
