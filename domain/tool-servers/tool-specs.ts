// A published tool server's tools as the one tool registry sees them: named `<slug>.<tool>`, the upstream's
// own input schema, and, for a priced tool, one more argument the gateway takes off before the upstream sees
// the call: `gateway_payment` (`wallet_id` to pay from, optional `attempt_id` to make the call idempotent).
import type { ToolSpec } from '../tools/tool-spec';
import type { Currency } from '../../contracts/currencies';
import { minorToPrice } from './money';
import type { ServerToolRow, ToolServer } from './servers';

export const PAYMENT_ARGUMENT = 'gateway_payment';

export const PaymentArgument = {
  type: 'object',
  required: ['wallet_id'],
  additionalProperties: false,
  description: 'How the gateway charges this priced call: the wallet it holds and debits the price from.',
  properties: {
    wallet_id: { type: 'string', minLength: 1, maxLength: 128 },
    attempt_id: { type: 'string', minLength: 1, maxLength: 128 },
  },
};

/** A paid call's arguments split into the `gateway_payment` the gateway keeps and what goes upstream. */
export function splitPayment(args: Record<string, unknown>): {
  payment: { wallet_id: string; attempt_id?: string };
  upstream: Record<string, unknown>;
} {
  // The published schema made gateway_payment required, and the arguments were checked against it.
  const { [PAYMENT_ARGUMENT]: payment, ...upstream } = args;
  return { payment: payment as { wallet_id: string; attempt_id?: string }, upstream };
}

/** The upstream's schema as the gateway validates it: `$schema` and `$id` are the upstream's business. */
export function ownSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _s, $id: _i, ...rest } = schema;
  return { type: 'object', ...rest };
}

/**
 * The validator compiles a schema once per schema object, so the same tool keeps the same object across
 * requests (a fresh object per call would compile, and be kept by the validator, every time).
 */
const schemas = new Map<string, { source: string; schema: Record<string, unknown> }>();
function stableSchema(key: string, schema: Record<string, unknown>): Record<string, unknown> {
  const source = JSON.stringify(schema);
  const known = schemas.get(key);
  if (known && known.source === source) return known.schema;
  schemas.set(key, { source, schema });
  return schema;
}

export function tenantToolSpec(server: ToolServer, tool: ServerToolRow): ToolSpec {
  const base = ownSchema(tool.input_schema);
  const priced = tool.price_minor > 0n;
  const built = priced
    ? {
        ...base,
        required: [...((base.required as string[] | undefined) ?? []), PAYMENT_ARGUMENT],
        properties: {
          ...((base.properties as Record<string, unknown> | undefined) ?? {}),
          [PAYMENT_ARGUMENT]: PaymentArgument,
        },
      }
    : base;
  const inputSchema = stableSchema(`${server.id}/${tool.tool_name}`, built);
  return {
    name: `${server.slug}.${tool.tool_name}`,
    serverId: server.slug,
    description: priced
      ? `${tool.description} (${minorToPrice(tool.price_minor, server.currency as Currency)} ${server.currency} per call, paid from gateway_payment.wallet_id)`.trim()
      : tool.description,
    movesMoney: priced,
    // A priced call is an attempt of the engine (family tool_charge), run by the tool-call path's tenant branch.
    attempt: priced,
    inputSchema,
    dispatch: { kind: 'tenant', server, tool },
  };
}

export const tenantToolSpecs = (server: ToolServer): ToolSpec[] =>
  server.tools.filter((tool) => tool.active).map((tool) => tenantToolSpec(server, tool));
