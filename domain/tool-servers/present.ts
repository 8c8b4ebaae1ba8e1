// The API shape of a tenant tool server: prices back as decimal strings (and minor units), the upstream
// credential reduced to its header name, never its value.
import type { Currency } from '../../contracts/currencies';
import { minorToPrice } from './money';
import type { ToolServer } from './servers';

export function presentToolServer(server: ToolServer): Record<string, unknown> {
  const currency = server.currency as Currency;
  return {
    id: server.id,
    object: 'mcp_server',
    slug: server.slug,
    name: server.name,
    description: server.description,
    overview_md: server.overview_md,
    category: server.category,
    upstream_url: server.upstream_url,
    upstream_auth: server.auth_header ? { header: server.auth_header } : null,
    consumer_id: server.consumer_id,
    currency,
    platform_fee_bps: server.platform_fee_bps,
    environment: server.environment,
    active: server.active,
    payout_wallet_id: server.payout_wallet_id,
    fee_wallet_id: server.fee_wallet_id,
    tools: server.tools.map((tool) => ({
      tool_name: tool.tool_name,
      name: `${server.slug}.${tool.tool_name}`,
      description: tool.description,
      price: minorToPrice(tool.price_minor, currency),
      price_minor: tool.price_minor.toString(),
      active: tool.active,
      input_schema: tool.input_schema,
    })),
    created_at: server.created_at,
    updated_at: server.updated_at,
  };
}
