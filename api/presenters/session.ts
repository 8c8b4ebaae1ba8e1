// The wire shapes of sessions, their tool calls and the servers a session can open.
import type { SessionRow } from '../../domain/sessions/sessions';
import { toolCallId, type ToolCallRow } from '../../domain/sessions/tool-calls';
import type { OpenableServer } from '../../domain/tools/servers';
import type { ToolSpec } from '../../domain/tools/tool-spec';

export function presentSession(row: SessionRow) {
  return {
    id: row.id,
    object: 'session',
    org_id: row.org_id,
    project_id: row.project_id,
    user_id: row.user_id,
    agent_id: row.agent_id,
    servers: row.servers,
    status: row.status,
    close_reason: row.close_reason,
    metadata: row.metadata,
    created_at: row.created_at,
    closed_at: row.closed_at,
  };
}

export function presentToolCall(row: ToolCallRow) {
  return {
    id: toolCallId(row),
    object: 'tool_call',
    session_id: row.session_id,
    server_id: row.server_id,
    tool_name: row.tool_name,
    status: row.status,
    duration_ms: row.duration_ms,
    error_code: row.error_code,
    input: row.input,
    output: row.output ?? null,
    attempt_id: row.attempt_id,
    approval_id: row.approval_id,
    called_at: row.called_at,
    finished_at: row.finished_at,
    routing: row.routing,
    failover_trail: row.failover_trail,
  };
}

export function presentTool(tool: ToolSpec) {
  return {
    name: tool.name,
    server_id: tool.serverId,
    description: tool.description,
    moves_money: tool.movesMoney,
    input_schema: tool.inputSchema,
  };
}

export function presentServer(server: OpenableServer) {
  return {
    id: server.id,
    object: 'server',
    name: server.name,
    kind: server.kind,
    description: server.description,
    category: server.category,
    connection_id: server.connection_id,
    tools_count: server.tools.length,
    tools: server.tools.map(presentTool),
  };
}
