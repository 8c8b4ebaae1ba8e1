// What a tool call answers, whichever branch made it (a gated call, a paying attempt, a tenant's paid
// call) and whichever door renders it (REST, MCP): the HTTP status, the recorded call, and the flat
// denial when a rule stopped it.
import type { ToolCallRow } from '../../domain/sessions/tool-calls';

export interface ToolCallAnswer {
  status: number;
  call: ToolCallRow;
  denial?: Record<string, unknown>;
  headers?: Record<string, string>;
}
