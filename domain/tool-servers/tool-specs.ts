// A published tool server's tools as the one tool registry sees them: named `<slug>.<tool>`, the upstream's
// own input schema, and, for a priced tool, one more argument the gateway takes off before the upstream sees
// the call: `gateway_payment` (`wallet_id` to pay from, optional `attempt_id` to make the call idempotent).
import type { ToolSpec } from '../tools/registry';
import type { Currency } from '../wallets/currencies';
import { minorToPrice } from './money';
import type { ServerToolRow, ToolServer } from './servers';

export const PAYMENT_ARGUMENT = 'gateway_payment';

const PaymentArgument = {
  type: 'object',
  required: ['wallet_id'],
  additionalProperties: false,
  description: 'How the gateway charges this priced call: the wallet it holds and debits the price from.',
  properties: {
    wallet_id: { type: 'string', minLength: 1, maxLength: 128 },
    attempt_id: { type: 'string', minLength: 1, maxLength: 128 },
  },
};

/** The upstream's schema as the gateway validates it: `$schema` and `$id` are the upstream's business. */
function ownSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _s, $id: _i, ...rest } = schema;
  return { type: 'object', ...rest };
}

export function tenantToolSpec(server: ToolServer, tool: ServerToolRow): ToolSpec {
  const base = ownSchema(tool.input_schema);
  const priced = tool.price_minor > 0n;
  const inputSchema = priced
    ? {
        ...base,
        required: [...((base.required as string[] | undefined) ?? []), PAYMENT_ARGUMENT],
        properties: {
          ...((base.properties as Record<string, unknown> | undefined) ?? {}),
          [PAYMENT_ARGUMENT]: PaymentArgument,
        },
      }
    : base;
  return {
    name: `${server.slug}.${tool.tool_name}`,
    serverId: server.slug,
    description: priced
      ? `${tool.description} (${minorToPrice(tool.price_minor, server.currency as Currency)} ${server.currency} per call, paid from gateway_payment.wallet_id)`.trim()
      : tool.description,
    movesMoney: priced,
    inputSchema,
    dispatch: { kind: 'tenant', server, tool },
  };
}

export const tenantToolSpecs = (server: ToolServer): ToolSpec[] =>
  server.tools.filter((tool) => tool.active).map((tool) => tenantToolSpec(server, tool));
