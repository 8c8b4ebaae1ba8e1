// The MCP server of one gateway session: its tools listed from the registry with their JSON Schemas
// through the SDK's JSON-Schema adapter, and every tools/call sent down the one tool-call path
// (api/flows/tool-call.ts), so validation, policy, approvals, attempts, recording and events are exactly
// REST's. The caller of each request travels in the transport's authInfo, never in the server instance.
// The SDK's low-level Server serves it: tools/list answers entries built once per tool schema, where the
// high-level McpServer registered and converted every tool of the session on every request.
import {
  ProtocolError,
  ProtocolErrorCode,
  Server,
  fromJsonSchema,
  type AuthInfo,
  type CallToolResult,
  type JsonSchemaType,
  type Tool,
} from '@modelcontextprotocol/server';
import { ApiError, FlatError } from '../../domain/errors';
import { resolveSessionTools, toolsOfServer } from '../../domain/tools/registry';
import type { ToolSpec } from '../../domain/tools/tool-spec';
import type { AppDeps } from '../deps';
import { callTool } from '../flows/tool-call';
import { presentToolCall } from '../presenters/session';
import type { Principal } from '../principal';
import type { SessionRow } from '../../domain/sessions/sessions';

/** What the route hands the transport for one request: who calls, in which session (as the route read it). */
export interface McpCaller {
  principal: Principal;
  session: SessionRow;
  requestId: string;
  /** The gateway's origin as this request reached it (what a card's issuer calls back). */
  origin: string;
}

export function authInfoFor(token: string, caller: McpCaller): AuthInfo {
  return {
    token,
    clientId: caller.principal.keyId ?? 'service',
    scopes: caller.principal.scopes,
    extra: { caller },
  };
}

function callerOf(authInfo: AuthInfo | undefined): McpCaller {
  const caller = authInfo?.extra?.caller as McpCaller | undefined;
  // The route authenticates every request before the transport sees it; no caller is a wiring fault.
  if (!caller) throw new Error('MCP request reached a tool without an authenticated caller');
  return caller;
}

const text = (value: unknown): CallToolResult['content'] => [{ type: 'text', text: JSON.stringify(value) }];

/** A refusal the REST door answers with a status becomes a tool error carrying the same body. */
function toolError(body: Record<string, unknown>): CallToolResult {
  return { isError: true, content: text(body), structuredContent: body };
}

/** One tools/call of the session's caller, answered as the SDK's handler returns it. */
export async function runTool(
  deps: AppDeps,
  name: string,
  args: Record<string, unknown>,
  authInfo: AuthInfo | undefined,
): Promise<CallToolResult> {
  const caller = callerOf(authInfo);
  try {
    const answer = await callTool(
      deps,
      caller.principal,
      caller.session,
      { tool: name, arguments: args, origin: caller.origin },
      caller.requestId,
    );
    if (answer.denial) return toolError(answer.denial);
    const call = presentToolCall(answer.call);
    if (call.status !== 'success')
      return toolError({ tool_call_id: call.id, error_code: call.error_code, output: call.output });
    const output =
      call.output !== null && typeof call.output === 'object' && !Array.isArray(call.output)
        ? (call.output as Record<string, unknown>)
        : { result: call.output };
    return { content: text(output), structuredContent: output, _meta: { tool_call_id: call.id } };
  } catch (error) {
    // A tool the session does not publish is a protocol error in MCP, as the SDK's own servers answer it.
    if (error instanceof ApiError && error.code === 'tool_not_found')
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${name} not found`);
    if (error instanceof ApiError)
      return toolError({
        error: {
          code: error.code,
          message: error.message,
          ...(error.details ? { details: error.details } : {}),
        },
      });
    if (error instanceof FlatError) return toolError(error.body);
    throw error;
  }
}

// The listed form of one tool schema, made once through the adapter: the registry's schemas are long-lived
// objects, and converting them anew on every request was most of the cost of listing a large session.
const listedSchemas = new WeakMap<object, Tool['inputSchema']>();
function listedInputSchema(tool: ToolSpec): Tool['inputSchema'] {
  let listed = listedSchemas.get(tool.inputSchema);
  if (!listed) {
    const adapted = fromJsonSchema<Record<string, unknown>>(tool.inputSchema as JsonSchemaType);
    listed = adapted['~standard'].jsonSchema.input({ target: 'draft-2020-12' }) as Tool['inputSchema'];
    listedSchemas.set(tool.inputSchema, listed);
  }
  return listed;
}

const listedTool = (tool: ToolSpec): Tool => ({
  name: tool.name,
  description: tool.description,
  inputSchema: listedInputSchema(tool),
  annotations: {
    readOnlyHint: !tool.movesMoney && tool.dispatch.kind === 'gateway',
    destructiveHint: tool.movesMoney,
    openWorldHint: tool.dispatch.kind !== 'gateway',
  },
});

/**
 * What a session's tools/list answer lists, as a key for kept answers: built-in and catalog servers by id
 * (their tools never change in a running process), others by their listed tools, read now.
 */
export async function listedToolsKey(
  deps: AppDeps,
  environment: 'live' | 'test',
  servers: string[],
): Promise<string> {
  if (servers.every((id) => toolsOfServer(id) !== undefined)) return `servers:${servers.join(',')}`;
  const tools = await resolveSessionTools(deps.db, environment, servers);
  return `tools:${JSON.stringify(tools.map(listedTool))}`;
}

/**
 * A server for a session's tools: per request on the current protocol, per MCP session on the 2025 one.
 * Each request's own authInfo names the caller and the session's servers: tools/list resolves them then
 * (tenant tool servers live in PostgreSQL), and tools/call goes to the tool-call path by name, which finds
 * the tool and checks its arguments against the same schema, refusing them with REST's body.
 */
export const SERVER_INFO = { name: 'agent-payments-gateway', version: '0.3.0' };

export function sessionServer(deps: AppDeps): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions:
      "Tools of your gateway session. Every call is checked by the project's policies; a denied or held call returns a tool error with `reason` (and `approval_id` when a person must approve).",
  });
  server.setRequestHandler('tools/list', async (_request, ctx) => {
    const authInfo = ctx.http?.authInfo;
    const servers = (authInfo?.extra?.servers as string[] | undefined) ?? [];
    const tools = await resolveSessionTools(deps.db, callerOf(authInfo).principal.environment, servers);
    return { tools: tools.map(listedTool) };
  });
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const result = await runTool(
      deps,
      request.params.name,
      request.params.arguments ?? {},
      ctx.http?.authInfo,
    );
    return server.projectCallToolResult(result, undefined);
  });
  return server;
}
