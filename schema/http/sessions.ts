// Sessions, tool calls and the servers a session can open: request schemas (validated) and response
// schemas (documented).
import { Nullable, type JsonSchema, type SchemaValue } from './json-schema';
import { Metadata, Timestamp } from './common';

const ServerId = {
  type: 'string',
  pattern: '^[a-z0-9][a-z0-9-]{1,63}$',
  description: "A server id from `GET /v1/servers`: `gateway` or a catalog provider's slug.",
} as const satisfies JsonSchema;
const SessionIdPattern = '^ses_[0-9a-z]{26}$';
const ToolCallIdPattern = '^tc_[1-9][0-9]{0,18}$';

export const SessionParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', pattern: SessionIdPattern } },
} as const satisfies JsonSchema;
export const ToolCallParams = {
  type: 'object',
  required: ['id', 'callId'],
  properties: {
    id: { type: 'string', pattern: SessionIdPattern },
    callId: { type: 'string', pattern: ToolCallIdPattern },
  },
} as const satisfies JsonSchema;

export const Tool = {
  type: 'object',
  required: ['name', 'server_id', 'description', 'moves_money', 'input_schema'],
  properties: {
    name: {
      type: 'string',
      description:
        "What policies match (`tools` globs) and what a call names: `wallet.execute`, or `<server>.<tool>` for a provider's.",
    },
    server_id: { type: 'string' },
    description: { type: 'string' },
    moves_money: {
      type: 'boolean',
      description: 'A paying tool runs as an attempt of the attempt engine (idempotent by `attempt_id`).',
    },
    input_schema: { type: 'object', description: 'JSON Schema 2020-12 of the arguments.' },
  },
} as const satisfies JsonSchema;

export const Server = {
  type: 'object',
  required: [
    'id',
    'object',
    'name',
    'kind',
    'description',
    'category',
    'connection_id',
    'tools_count',
    'tools',
  ],
  properties: {
    id: { type: 'string' },
    object: { const: 'server' },
    name: { type: 'string' },
    kind: { enum: ['gateway', 'provider', 'tool_server'] },
    description: Nullable({ type: 'string' }),
    category: Nullable({ type: 'string' }),
    connection_id: Nullable({ type: 'string', description: "The active connection a provider's calls use." }),
    tools_count: { type: 'integer' },
    tools: { type: 'array', items: Tool },
  },
} as const satisfies JsonSchema;
export const ServerList = {
  type: 'object',
  required: ['servers', 'has_more'],
  properties: { servers: { type: 'array', items: Server }, has_more: { const: false } },
} as const satisfies JsonSchema;

export const SessionCreate = {
  type: 'object',
  required: ['servers'],
  additionalProperties: false,
  properties: {
    servers: {
      type: 'array',
      minItems: 1,
      maxItems: 50,
      items: ServerId,
      description: 'The servers the session opens; each must be listed by `GET /v1/servers`.',
    },
    agent_id: {
      type: 'string',
      minLength: 1,
      maxLength: 128,
      description: 'The agent policies see (their `agents` globs); the session id when omitted.',
    },
    metadata: Metadata,
  },
} as const satisfies JsonSchema;

export const Session = {
  type: 'object',
  required: [
    'id',
    'object',
    'org_id',
    'project_id',
    'user_id',
    'agent_id',
    'servers',
    'status',
    'close_reason',
    'metadata',
    'created_at',
    'closed_at',
  ],
  properties: {
    id: { type: 'string', pattern: SessionIdPattern },
    object: { const: 'session' },
    org_id: { type: 'string' },
    project_id: { type: 'string' },
    user_id: Nullable({ type: 'string' }),
    agent_id: { type: 'string' },
    servers: { type: 'array', items: { type: 'string' } },
    status: { enum: ['active', 'closed', 'error'] },
    close_reason: Nullable({
      enum: ['closed_by_caller', 'key_revoked'],
      description: '`key_revoked`: the key the session was opened with was revoked.',
    }),
    metadata: Metadata,
    created_at: Timestamp,
    closed_at: Nullable(Timestamp),
  },
} as const satisfies JsonSchema;

export const SessionListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { enum: ['active', 'closed', 'error'] },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    starting_after: {
      type: 'string',
      pattern: SessionIdPattern,
      description: 'Cursor: the last session id of the previous page.',
    },
  },
} as const satisfies JsonSchema;
export const SessionList = {
  type: 'object',
  required: ['sessions', 'has_more'],
  properties: { sessions: { type: 'array', items: Session }, has_more: { type: 'boolean' } },
} as const satisfies JsonSchema;
export const ToolList = {
  type: 'object',
  required: ['tools', 'has_more'],
  properties: { tools: { type: 'array', items: Tool }, has_more: { const: false } },
} as const satisfies JsonSchema;

export const ToolCallCreate = {
  type: 'object',
  required: ['tool'],
  additionalProperties: false,
  properties: {
    tool: {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      description: "The tool's name as `GET /v1/sessions/{id}/tools` lists it.",
    },
    arguments: {
      type: 'object',
      default: {},
      description: "Checked against the tool's `input_schema`; a paying tool takes `attempt_id` here.",
    },
  },
} as const satisfies JsonSchema;

export const ToolCall = {
  type: 'object',
  required: [
    'id',
    'object',
    'session_id',
    'server_id',
    'tool_name',
    'status',
    'duration_ms',
    'error_code',
    'input',
    'output',
    'called_at',
    'routing',
    'failover_trail',
  ],
  properties: {
    id: { type: 'string', pattern: ToolCallIdPattern },
    object: { const: 'tool_call' },
    session_id: { type: 'string' },
    server_id: { type: 'string' },
    tool_name: { type: 'string' },
    status: { enum: ['running', 'success', 'error'] },
    duration_ms: Nullable({ type: 'integer' }),
    error_code: Nullable({ type: 'string' }),
    input: { type: 'object' },
    output: { description: "The tool's result (a paying tool's GatewayPaymentResult), or `{error}`." },
    attempt_id: Nullable({ type: 'string' }),
    approval_id: Nullable({ type: 'string' }),
    called_at: Timestamp,
    finished_at: Nullable(Timestamp),
    routing: { type: 'object' },
    failover_trail: { type: 'array' },
  },
} as const satisfies JsonSchema;
export const ToolCallListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    starting_after: {
      type: 'string',
      pattern: ToolCallIdPattern,
      description: 'Cursor: the last tool call id of the previous page.',
    },
  },
} as const satisfies JsonSchema;
export const ToolCallList = {
  type: 'object',
  required: ['tool_calls', 'has_more'],
  properties: { tool_calls: { type: 'array', items: ToolCall }, has_more: { type: 'boolean' } },
} as const satisfies JsonSchema;

export const QuotaExceeded = {
  type: 'object',
  required: ['error', 'setting', 'limit'],
  properties: {
    error: { const: 'quota_exceeded' },
    message: { type: 'string' },
    setting: { const: 'session_max_active' },
    limit: { type: 'integer' },
    active: { type: 'integer' },
  },
} as const satisfies JsonSchema;
export const RateLimited = {
  type: 'object',
  required: ['error', 'setting', 'limit', 'window_seconds', 'retry_after_seconds'],
  properties: {
    error: { const: 'rate_limited' },
    message: { type: 'string' },
    setting: { const: 'session_tool_calls_per_minute' },
    limit: { type: 'integer' },
    window_seconds: { type: 'integer' },
    retry_after_seconds: { type: 'integer' },
  },
} as const satisfies JsonSchema;

export const ToolCallFinalize = {
  type: 'object',
  additionalProperties: false,
  properties: {
    reason: {
      type: 'string',
      minLength: 1,
      maxLength: 512,
      description: 'Why the caller gave up on the call; kept in its output.',
    },
  },
} as const satisfies JsonSchema;
