// tools/call on the current protocol, answered without a per-request SDK Server and transport (and without
// a web request or response) once the SDK has accepted a request of the same shape. The SDK's work on such
// a call is fixed: a validation ladder that reads the headers and the body's envelope (never the tool's
// arguments beyond their being an object, nor the tool's name beyond its matching the Mcp-Name header),
// then the handler, then an answer whose bytes follow from the handler's result. So a request is answered
// here only when its shape (the headers the ladder reads and the body without id, name and arguments)
// already earned a result from the SDK, its name is plain and named again in Mcp-Name, and its arguments
// are a plain object; everything else goes to the SDK. The tool call itself is the same call the SDK's
// handler makes (runTool), and the answer is written as the SDK writes it, which
// test/mcp-call-answers.test.ts holds byte for byte against the SDK's own.
import type { AuthInfo, CallToolResult } from '@modelcontextprotocol/server';
import type { AppDeps } from '../deps';
import { runTool, SERVER_INFO } from './server';
import { shapeHeaders, type Incoming, type McpAnswer, type WholeAnswer } from './whole-answer';

const READ_HEADERS = ['accept', 'content-type'];
const SERVER_INFO_META = 'io.modelcontextprotocol/serverInfo';

/** Bounded: clients send few distinct envelopes, and an unusual one is not worth keeping. */
const MAX_KEPT = 256;

/** Names whose Mcp-Name header carries them verbatim (no encoded form for the ladder to judge). */
const PLAIN_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

type RequestId = string | number;

export interface Call {
  id: RequestId;
  name: string;
  args: Record<string, unknown>;
  shape: string;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The call in `body` when it is an ordinary tools/call with the SDK's verdict on its shape to look up. */
function ordinaryCall(incoming: Incoming, body: unknown): Call | undefined {
  if (incoming.method !== 'POST' || !isPlainObject(body)) return undefined;
  const { jsonrpc, id, method, params, ...rest } = body;
  if (jsonrpc !== '2.0' || method !== 'tools/call' || Object.keys(rest).length > 0) return undefined;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return undefined;
  if (!isPlainObject(params)) return undefined;
  const { name, arguments: args = {}, ...meta } = params;
  if (typeof name !== 'string' || !PLAIN_NAME.test(name) || incoming.headers['mcp-name'] !== name)
    return undefined;
  if (!isPlainObject(args) || Object.hasOwn(args, '__proto__')) return undefined;
  if (Object.keys(meta).some((key) => key !== '_meta')) return undefined;
  const shape = `${shapeHeaders(incoming, READ_HEADERS, 'mcp-name')}${JSON.stringify(meta)}`;
  return { id: id as RequestId, name, args, shape };
}

/** The result as the SDK encodes it on the current protocol: its schema's key order, then what it adds. */
function encodedResult(result: CallToolResult): Record<string, unknown> {
  const encoded: Record<string, unknown> = {};
  if (result._meta) encoded._meta = { ...result._meta, [SERVER_INFO_META]: SERVER_INFO };
  encoded.content = result.content;
  if (result.structuredContent !== undefined) encoded.structuredContent = result.structuredContent;
  if (result.isError !== undefined) encoded.isError = result.isError;
  encoded.resultType = 'complete';
  if (!result._meta) encoded._meta = { [SERVER_INFO_META]: SERVER_INFO };
  return encoded;
}

const JSON_HEADERS: Array<[string, string]> = [['content-type', 'application/json']];

const json = (message: unknown): WholeAnswer => ({
  status: 200,
  headers: JSON_HEADERS,
  body: JSON.stringify(message),
});

/** A thrown error as the SDK's protocol layer answers it (after dispatch, so with 200). */
function errorAnswer(id: RequestId, error: unknown): WholeAnswer {
  const thrown = (error ?? {}) as { code?: unknown; message?: string; data?: unknown };
  const code = Number.isSafeInteger(thrown.code) ? (thrown.code as number) : -32603;
  return json({
    jsonrpc: '2.0',
    id,
    error: {
      code: code === -32002 ? -32602 : code,
      message: thrown.message ?? 'Internal error',
      ...(thrown.data !== undefined && { data: thrown.data }),
    },
  });
}

export interface CallAnswers {
  /** The call in `body` when the SDK has answered its shape with a result before: run() answers it. */
  accepted(incoming: Incoming, body: unknown): Call | undefined;
  /** The answer to an accepted call, made here. */
  run(call: Call, authInfo: AuthInfo): Promise<WholeAnswer>;
  /** The answer to any other request: `serve()`'s, its shape accepted when it is an ordinary call's result. */
  answer(incoming: Incoming, body: unknown, serve: () => Promise<Response>): Promise<McpAnswer>;
}

export function callAnswers(deps: AppDeps): CallAnswers {
  const accepted = new Set<string>();
  return {
    accepted(incoming, body) {
      const call = ordinaryCall(incoming, body);
      return call && accepted.has(call.shape) ? call : undefined;
    },
    async run(call, authInfo) {
      try {
        const result = await runTool(deps, call.name, call.args, authInfo);
        return json({ result: encodedResult(result), jsonrpc: '2.0', id: call.id });
      } catch (error) {
        return errorAnswer(call.id, error);
      }
    },
    async answer(incoming, body, serve) {
      const call = ordinaryCall(incoming, body);
      const response = await serve();
      if (!call || response.status !== 200 || response.headers.get('content-type') !== 'application/json')
        return response;
      const text = await response.text();
      if ((JSON.parse(text) as { result?: unknown }).result !== undefined) {
        if (accepted.size >= MAX_KEPT) accepted.delete(accepted.values().next().value!);
        accepted.add(call.shape);
      }
      const headers: Array<[string, string]> = [];
      response.headers.forEach((value, name) => headers.push([name, value]));
      return { status: response.status, headers, body: text };
    },
  };
}
