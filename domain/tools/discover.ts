// Meta-tool discovery: a structured intent (operation, amount, currency, country, urgency, recipient kind)
// resolved to the callable tool and rail that should carry it, with score-ordered alternatives. Routes are
// the catalog's money rails; only those the project has connected are eligible, and each is scored from
// what the gateway has measured: the project's own recorded tool calls of the route (success rate, median
// latency, fees their attempts paid) and the catalog's rail fee for the intent's amount. Equal scores go to
// the cheaper route, then to the one with more recorded calls; never to a name.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import type { SchemaValue } from '../../schema/http/json-schema';
import type { StructuredIntent } from '../../schema/http/discovery';
import { ApiError } from '../errors';
import { catalogServer, connectRoute } from '../providers/catalog';
import { listConnections, type Tenant } from '../providers/connections';

export type DiscoverIntent = SchemaValue<typeof StructuredIntent>;

interface Route {
  operation: string;
  rail: string;
  providerId: string;
  /** The tool a session calls for it: the paying tool with the rail as preferred method, or a provider tool. */
  tool: string;
  currencies: string[];
  countries: string[];
  recipientKinds: string[];
  args: (intent: DiscoverIntent) => Record<string, unknown>;
}

const pay =
  (rail: string) =>
  (intent: DiscoverIntent): Record<string, unknown> => ({
    wallet_id: '<wallet_id>',
    amount: intent.amount_minor ? `<${intent.amount_minor} minor units as a decimal amount>` : '<amount>',
    currency: intent.currency ?? '<currency>',
    recipient: '<recipient>',
    description: '<description>',
    mandate_id: '<mandate_id>',
    preferred_method: rail,
    attempt_id: '<attempt_id>',
  });

// Which rail carries which operation, for whom, in which currency and country.
const ROUTES: Route[] = [
  {
    operation: 'pay',
    rail: 'pix',
    providerId: 'pix-psp',
    tool: 'wallet.execute',
    currencies: ['BRL'],
    countries: ['BR'],
    recipientKinds: ['person', 'business', 'pix_key'],
    args: pay('pix'),
  },
  {
    operation: 'pay',
    rail: 'ted',
    providerId: 'ted-bank',
    tool: 'wallet.execute',
    currencies: ['BRL'],
    countries: ['BR'],
    recipientKinds: ['person', 'business', 'bank_account'],
    args: pay('ted'),
  },
  {
    operation: 'pay',
    rail: 'onchain',
    providerId: 'stablecoin-rails',
    tool: 'wallet.execute',
    currencies: ['USDC', 'BRLA'],
    countries: ['BR', 'US', 'MX', 'CO', 'AR'],
    recipientKinds: ['wallet_address', 'business', 'person'],
    args: pay('onchain'),
  },
  {
    operation: 'pay_bill',
    rail: 'boleto',
    providerId: 'dda-hub',
    tool: 'wallet.execute',
    currencies: ['BRL'],
    countries: ['BR'],
    recipientKinds: ['business', 'bill'],
    args: pay('boleto'),
  },
  {
    operation: 'collect',
    rail: 'pix',
    providerId: 'pix-psp',
    tool: 'pix-psp.pix_charge_create',
    currencies: ['BRL'],
    countries: ['BR'],
    recipientKinds: ['person', 'business'],
    args: (intent) => ({
      amount_minor: intent.amount_minor ?? '<amount_minor>',
      expires_in_s: intent.urgency === 'high' ? 600 : 3600,
    }),
  },
];

export const DISCOVER_OPERATIONS = [...new Set(ROUTES.map((r) => r.operation))];

const statsRow = z.object({
  finished: z.number(),
  succeeded: z.number(),
  p50: z.number().nullable(),
  fee: z.number().nullable(),
});

interface RouteStats {
  finished: number;
  successRate: number | null;
  latencyP50: number | null;
  /** The catalog's fee for the intent's amount plus what the route's recorded attempts paid on average. */
  costMinor: number | null;
  /** The catalog's part of costMinor, for the reasons. */
  railFeeMinor: number | null;
}

/** The catalog's fee of the route's provider for an amount (its fixed part alone when none is named). */
function railFeeOf(route: Route, intent: DiscoverIntent): number | null {
  const fee = catalogServer(route.providerId)?.rail_fee;
  if (!fee) return null;
  const amount = intent.amount_minor ? Number(intent.amount_minor) : 0;
  return fee.fixed_minor + Math.ceil((amount * fee.bps) / 10_000);
}

async function statsOf(
  db: CommonQueryMethods,
  tenant: Tenant,
  route: Route,
  intent: DiscoverIntent,
): Promise<RouteStats> {
  const railFilter =
    route.tool === 'wallet.execute'
      ? sql.fragment`AND c.input->>'preferred_method' = ${route.rail}`
      : sql.fragment``;
  const row = await db.one(sql.type(statsRow)`
    SELECT count(*)::int AS finished, count(*) FILTER (WHERE c.status = 'success')::int AS succeeded,
      round(percentile_cont(0.5) WITHIN GROUP (ORDER BY c.duration_ms))::int AS p50,
      round(avg(COALESCE((SELECT -sum(e.amount_minor) FROM wallet_ledger_entries e
        WHERE e.org_id = c.org_id AND e.attempt_id = c.attempt_id AND e.kind = 'fee'), 0)) FILTER (WHERE c.status = 'success'))::int AS fee
    FROM tool_calls c
    WHERE c.org_id = ${tenant.orgId} AND c.project_id = ${tenant.projectId} AND c.tool_name = ${route.tool} AND c.status <> 'running' ${railFilter}`);
  const railFeeMinor = railFeeOf(route, intent);
  return {
    finished: row.finished,
    successRate: row.finished === 0 ? null : Math.round((row.succeeded / row.finished) * 1000) / 1000,
    latencyP50: row.p50,
    costMinor: railFeeMinor === null && row.fee === null ? null : (railFeeMinor ?? 0) + (row.fee ?? 0),
    railFeeMinor,
  };
}

/**
 * Success (Laplace-smoothed, so one lucky call is not certainty), speed (weighted up when urgent) and cost
 * relative to the amount (a fee of 1% of it halves the cost term; unknown cost and latency score as middling).
 */
function scoreOf(stats: RouteStats, intent: DiscoverIntent): number {
  const success = (stats.finished * (stats.successRate ?? 0) + 1) / (stats.finished + 2);
  const speed = stats.latencyP50 === null ? 0.5 : 1 / (1 + stats.latencyP50 / 1000);
  const base = intent.amount_minor ? Math.max(100, Number(intent.amount_minor) / 100) : 100;
  const cheap = stats.costMinor === null ? 0.5 : 1 / (1 + stats.costMinor / base);
  const speedWeight = intent.urgency === 'high' ? 0.4 : intent.urgency === 'low' ? 0.1 : 0.2;
  return success * (0.7 - speedWeight / 2) + speed * speedWeight + cheap * (0.3 - speedWeight / 2);
}

function reasonsOf(route: Route, stats: RouteStats, intent: DiscoverIntent): string[] {
  const reasons = [
    `${route.providerId} is connected and carries ${route.rail} for ${route.currencies.join('/')}`,
  ];
  if (stats.finished === 0) reasons.push('no recorded calls yet: scored on priors');
  else
    reasons.push(
      `${stats.finished} recorded calls: success rate ${stats.successRate}, median ${stats.latencyP50} ms, fee ${(stats.costMinor ?? 0) - (stats.railFeeMinor ?? 0)} minor`,
    );
  if (stats.railFeeMinor !== null)
    reasons.push(
      `catalog fee ${stats.railFeeMinor} minor${intent.amount_minor ? ` on ${intent.amount_minor}` : ' (fixed part; no amount named)'}`,
    );
  if (intent.urgency === 'high') reasons.push('urgent: latency weighs more');
  return reasons;
}

export interface Discovery {
  recommended: {
    tool: string;
    rail: string;
    provider_id: string;
    args_template: Record<string, unknown>;
    reasons: string[];
  };
  alternatives: Array<{
    tool: string;
    rail: string;
    provider_id: string;
    cost_minor: number | null;
    latency_p50_ms: number | null;
    success_rate: number | null;
    reasons: string[];
  }>;
  resolved_intent: DiscoverIntent;
}

export async function discover(
  db: CommonQueryMethods,
  tenant: Tenant,
  intent: DiscoverIntent,
): Promise<Discovery> {
  const candidates = ROUTES.filter((route) => route.operation === intent.operation);
  if (candidates.length === 0) {
    throw new ApiError(400, 'unknown_operation', `No tool ships the operation "${intent.operation}"`, {
      detail: `Operations: ${DISCOVER_OPERATIONS.join(', ')}`,
      operations: DISCOVER_OPERATIONS,
    });
  }
  const active = new Set(
    (await listConnections(db, tenant, {})).filter((c) => c.status === 'active').map((c) => c.provider),
  );
  const connected = candidates.filter(
    (route) => active.has(route.providerId) || catalogServer(route.providerId)?.auth_type === 'none',
  );
  if (connected.length === 0) {
    const providers = [...new Set(candidates.map((r) => r.providerId))];
    // Each hint is the route that connects that provider (an OAuth one through its authorization flow).
    const hints = providers.map((id) => connectRoute(catalogServer(id) ?? { id, auth_type: 'api_key' }));
    throw new ApiError(
      424,
      'eligibility_empty',
      `No connected provider carries "${intent.operation}"; connect one of ${providers.join(', ')}`,
      { providers, hint: hints[0], hints },
    );
  }
  const fit = connected.filter(
    (route) =>
      (!intent.currency || route.currencies.includes(intent.currency)) &&
      (!intent.country || route.countries.includes(intent.country)) &&
      (!intent.recipient_kind || route.recipientKinds.includes(intent.recipient_kind)),
  );
  if (fit.length === 0) {
    throw new ApiError(
      424,
      'direction_blocked',
      `No connected rail carries ${intent.currency ?? 'this currency'} to ${intent.country ?? 'this country'} for a ${intent.recipient_kind ?? 'recipient'}`,
      {
        rails: connected.map((r) => ({
          rail: r.rail,
          provider_id: r.providerId,
          currencies: r.currencies,
          countries: r.countries,
          recipient_kinds: r.recipientKinds,
        })),
      },
    );
  }
  const scored = await Promise.all(
    fit.map(async (route) => {
      const stats = await statsOf(db, tenant, route, intent);
      return { route, stats, score: scoreOf(stats, intent) };
    }),
  );
  const cost = (s: RouteStats) => s.costMinor ?? Number.POSITIVE_INFINITY;
  scored.sort(
    (a, b) => b.score - a.score || cost(a.stats) - cost(b.stats) || b.stats.finished - a.stats.finished,
  );
  const [best, ...rest] = scored;
  return {
    recommended: {
      tool: best.route.tool,
      rail: best.route.rail,
      provider_id: best.route.providerId,
      args_template: best.route.args(intent),
      reasons: reasonsOf(best.route, best.stats, intent),
    },
    alternatives: rest.map(({ route, stats }) => ({
      tool: route.tool,
      rail: route.rail,
      provider_id: route.providerId,
      cost_minor: stats.costMinor,
      latency_p50_ms: stats.latencyP50,
      success_rate: stats.successRate,
      reasons: reasonsOf(route, stats, intent),
    })),
    resolved_intent: { urgency: 'normal', ...intent },
  };
}
