// Registering a tenant tool server: the upstream handshake (refusing unusable URLs and, in live mode, private
// addresses), each named tool checked against what the upstream lists (its input schema is the upstream's, the
// payment argument reserved, the schema one the validator can use), prices read into minor units, the
// credential sealed in the vault, then the server with its wallets and tools written in one transaction.
import { ApiError } from '../../domain/errors';
import { catalogServer } from '../../domain/providers/catalog';
import { priceToMinor } from '../../domain/tool-servers/money';
import { presentToolServer } from '../../domain/tool-servers/present';
import { createToolServer, newToolServerId } from '../../domain/tool-servers/servers';
import { ownSchema, PAYMENT_ARGUMENT } from '../../domain/tool-servers/tool-specs';
import { sealUpstreamAuth } from '../../domain/tool-servers/upstream-auth';
import { BUILT_IN_SERVER_IDS } from '../../domain/tools/registry';
import { keyServiceFor } from '../../domain/vault/select';
import type { Currency } from '../../contracts/currencies';
import { handshake, type Handshake } from '../../providers/mcp-client/upstream';
import type { McpServerCreateBody } from '../../schema/http/mcp-servers';
import type { AppDeps } from '../deps';
import type { Principal } from '../principal';
import type { Reply } from '../route';
import { compile } from '../validation';

const scopeOf = (p: Principal) => ({ orgId: p.orgId, projectId: p.projectId, environment: p.environment });

/** How long a validate or create handshake may take before it is reported `timed_out`. */
export const HANDSHAKE_TIMEOUT_MS = 5_000;

export async function shake(
  deps: AppDeps,
  principal: Principal,
  url: string,
  auth: { header: string; value: string } | null,
): Promise<Handshake> {
  // The schema's `uri` format admits URLs the WHATWG parser refuses (a port above 65535): refused here.
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    parsed = null;
  }
  if (!parsed || !['http:', 'https:'].includes(parsed.protocol))
    throw new ApiError(400, 'invalid_body', 'upstream_url is not a usable http(s) URL', {
      issues: [{ path: '/upstream_url', message: 'must be an http(s) URL', keyword: 'format' }],
    });
  const found = await handshake({
    url,
    auth,
    environment: principal.environment,
    timeoutMs: Math.min(HANDSHAKE_TIMEOUT_MS, deps.config.providerTimeoutMs),
  });
  if (!found.ok && found.failure.code === 'forbidden_address')
    throw new ApiError(400, 'upstream_url_forbidden', found.failure.message, {
      issues: [{ path: '/upstream_url', message: found.failure.message, keyword: 'format' }],
    });
  return found;
}

const priceIssue = (index: number, currency: string) =>
  new ApiError(400, 'invalid_body', `tools/${index}/price is not a ${currency} amount`, {
    issues: [
      {
        path: `/tools/${index}/price`,
        message: `must be a decimal ${currency} amount with at most its minor-unit decimals`,
        keyword: 'format',
      },
    ],
  });

/** Each tool's price in minor units of the server's currency; the first beyond its decimals (or too large) is refused. */
export function toolPrices(body: Pick<McpServerCreateBody, 'currency' | 'tools'>): bigint[] {
  const currency = (body.currency ?? 'BRL') as Currency;
  return body.tools.map((tool, index) => {
    const minor = priceToMinor(tool.price, currency);
    if (minor === null) throw priceIssue(index, currency);
    return minor;
  });
}

export async function registerToolServer(
  deps: AppDeps,
  principal: Principal,
  body: McpServerCreateBody,
): Promise<Reply> {
  const prices = toolPrices(body);
  const names = body.tools.map((t) => t.tool_name);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice)
    throw new ApiError(400, 'invalid_body', `The tool "${twice}" is listed twice`, {
      issues: [{ path: '/tools', message: `"${twice}" appears twice`, keyword: 'uniqueItems' }],
    });
  if (BUILT_IN_SERVER_IDS.includes(body.slug) || catalogServer(body.slug))
    throw new ApiError(409, 'slug_conflict', `The slug "${body.slug}" is taken`, { slug: body.slug });
  const found = await shake(deps, principal, body.upstream_url, body.upstream_auth ?? null);
  if (!found.ok)
    throw new ApiError(422, 'upstream_unavailable', `The upstream handshake failed: ${found.failure.code}`, {
      failure: found.failure,
    });
  const tools = body.tools.map((tool, index) => {
    const upstream = found.tools.find((t) => t.name === tool.tool_name);
    if (!upstream)
      throw new ApiError(422, 'tool_not_upstream', `The upstream lists no tool "${tool.tool_name}"`, {
        tool: tool.tool_name,
        upstream_tools: found.tools.map((t) => t.name),
      });
    const properties = (upstream.input_schema.properties ?? {}) as Record<string, unknown>;
    if (Object.prototype.hasOwnProperty.call(properties, PAYMENT_ARGUMENT))
      throw new ApiError(
        422,
        'tool_argument_reserved',
        `The upstream tool "${tool.tool_name}" takes an argument named ${PAYMENT_ARGUMENT}, which the gateway reserves`,
        { tool: tool.tool_name },
      );
    try {
      compile(ownSchema(upstream.input_schema), 'body');
    } catch {
      // A schema the gateway cannot check arguments against would fail every call: refused now.
      throw new ApiError(
        422,
        'tool_schema_unusable',
        `The upstream tool "${tool.tool_name}" has an input schema the gateway cannot validate against`,
        { tool: tool.tool_name },
      );
    }
    return {
      name: tool.tool_name,
      description: tool.description ?? upstream.description,
      inputSchema: upstream.input_schema,
      priceMinor: prices[index],
    };
  });
  const id = newToolServerId();
  const auth = body.upstream_auth
    ? {
        header: body.upstream_auth.header,
        sealed: await sealUpstreamAuth(
          keyServiceFor(deps.config.vault),
          principal,
          id,
          body.upstream_auth.value,
        ),
      }
    : null;
  const server = await createToolServer(deps.db, scopeOf(principal), {
    id,
    slug: body.slug,
    name: body.name,
    description: body.description ?? null,
    overviewMd: body.overview_md ?? null,
    category: body.category ?? null,
    upstreamUrl: body.upstream_url,
    consumerId: body.consumer_id ?? null,
    currency: (body.currency ?? 'BRL') as Currency,
    platformFeeBps: body.platform_fee_bps,
    auth,
    tools,
  });
  return { status: 201, body: presentToolServer(server) };
}
