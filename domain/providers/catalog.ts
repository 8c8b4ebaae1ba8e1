// The provider catalog: the versioned data file catalog.json beside this module, checked once at load,
// and the lookups every other area uses (by slug, filtered listing, does a server exist).
// Generated providers (per-project servers) are a second source, resolved in resolve.ts.
import { z } from 'zod';
import { AUTH_TYPES } from '../../contracts/provider-auth-types';
import type { GeneratedOperation } from '../generated-servers/operations';
import catalogFile from './catalog.json';

const field = z.object({
  name: z.string().regex(/^[a-z][a-z0-9_]*$/),
  kind: z.string(),
  label: z.string(),
  header_name: z.string().nullable(),
  pattern: z.string().optional(),
  optional: z.boolean().optional(),
  /** false for plain settings (a wallet address) kept readable beside the sealed secret. */
  secret: z.boolean().optional(),
  /** Filled by the gateway (OAuth tokens), never by the account. */
  managed: z.boolean().optional(),
});
export type CatalogField = z.infer<typeof field>;

/** A JSON Pointer into a tool call's arguments or a provider's answer (`/payment_requirements/amount`). */
const pointer = z.string().regex(/^(\/[^/]+)+$/);

/**
 * How the gateway pays through a tool that moves money, as data: where the minor-unit amount is in the
 * arguments (`pattern`: the amount is its capture groups joined, for an amount written inside another
 * field; `stated`: an argument the gateway publishes beside the provider's own, for a tool whose provider
 * prices the call itself), the currency (fixed, or an argument), what names the recipient, where the
 * provider's id is in a 2xx answer and its code in a refusal, and where the provider tells what became of
 * an idempotency key (`GET`, `{idempotency_key}` filled in): 404 never received, or 200
 * `{state: completed|refused|processing, result}` with `result` the send's own answer.
 */
const money = z.object({
  amount: z.object({
    pointer,
    pattern: z.string().optional(),
    stated: z.record(z.unknown()).optional(),
  }),
  currency: z.union([z.object({ fixed: z.string() }), z.object({ pointer })]),
  recipient: pointer,
  payment_id: pointer,
  refusal_code: pointer,
  status: z.object({ path: z.string().includes('{idempotency_key}') }),
});
export type CatalogMoney = z.infer<typeof money>;

const tool = z.object({
  name: z.string().regex(/^[a-z][a-z0-9_]*$/),
  description: z.string(),
  moves_money: z.boolean(),
  input_schema: z.record(z.unknown()),
  /** Every tool that moves money has one: it is what makes the tool a wallet spend attempt. */
  money: money.optional(),
});
export type CatalogTool = z.infer<typeof tool>;

/**
 * How a provisioning run opens a sandbox account at the provider for a test project: `signup_api`, the
 * provider's sign-up API at `signup_path` under its sandbox base URL (sign-up, an optional verification
 * code, then an issued API key), the key stored as the connection's field `credential_field`.
 */
const provisioning = z.object({
  method: z.literal('signup_api'),
  signup_path: z.string().regex(/^(\/[a-z0-9_-]+)+$/),
  credential_field: z.string(),
});

const server = z.object({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]{1,63}$/),
  name: z.string(),
  pkg: z.string(),
  category: z.string(),
  country: z.string().regex(/^[A-Z]{2}$/),
  auth_type: z.enum(AUTH_TYPES),
  status: z.enum(['active', 'beta', 'deprecated']),
  rail: z.string().nullable(),
  /** What the provider charges per payment on its rail: a fixed part and basis points of the amount. */
  rail_fee: z
    .object({ fixed_minor: z.number().int().nonnegative(), bps: z.number().int().min(0).max(10_000) })
    .optional(),
  description: z.string().nullable(),
  provider_docs_url: z.string().url(),
  provider_homepage: z.string().url(),
  provider_logo_url: z.string().url(),
  provider_logo_fallback_url: z.string().url(),
  subaccount_provisionable: z.boolean(),
  provisioning: provisioning.optional(),
  /**
   * live: the provider's own base URL; test_mock: the name of its sandbox endpoint (PROVIDER_<NAME>_URL,
   * a mock server in dev and tests), whose PROVIDER_<NAME>_LIVE_URL replaces `live` when set.
   */
  endpoints: z.object({ live: z.string().optional(), test_mock: z.string().optional() }),
  path_template: z.string().optional(),
  // sandbox_client: the sandbox's published OAuth client for test keys; live clients come from configuration.
  oauth: z
    .object({
      authorize_path: z.string(),
      token_path: z.string(),
      scope: z.string(),
      sandbox_client: z.object({ client_id: z.string(), client_secret: z.string() }).optional(),
    })
    .optional(),
  fields: z.array(field),
  verify: z.object({ method: z.enum(['GET', 'POST']), path: z.string() }).nullable(),
  tools: z.array(tool).min(1),
});
/**
 * What a project's published generated server adds to the catalog's shape (the catalog file never has
 * it): whose it is, which version serves, its base URL per environment, and the HTTP operation each tool
 * stands for (a catalog tool is `POST /tools/<name>`; a generated one is its document's operation).
 */
export interface GeneratedProvider {
  serverId: string;
  version: number;
  orgId: string;
  projectId: string;
  baseUrls: { live: string | null; test: string | null };
  operations: Record<string, GeneratedOperation>;
}
export type CatalogServer = z.infer<typeof server> & { generated?: GeneratedProvider };

const catalogSchema = z.object({ version: z.number().int().positive(), servers: z.array(server) });

function loadCatalog(): { version: number; servers: Map<string, CatalogServer> } {
  const parsed = catalogSchema.parse(catalogFile);
  const servers = new Map<string, CatalogServer>();
  for (const entry of parsed.servers) {
    if (servers.has(entry.id)) throw new Error(`catalog lists ${entry.id} twice`);
    if (entry.auth_type === 'oauth' && !entry.oauth)
      throw new Error(`catalog: OAuth server ${entry.id} has no oauth endpoints`);
    const unpriced = entry.tools.find((t) => t.moves_money !== Boolean(t.money));
    if (unpriced)
      throw new Error(
        `catalog: ${entry.id}.${unpriced.name} needs a money block exactly when it moves money`,
      );
    if (
      entry.provisioning &&
      (!entry.endpoints.test_mock ||
        !entry.fields.some((f) => f.name === entry.provisioning?.credential_field))
    )
      throw new Error(`catalog: ${entry.id} provisions into a field it lacks, or has no sandbox`);
    servers.set(entry.id, entry);
  }
  return { version: parsed.version, servers };
}

const CATALOG = loadCatalog();
export function catalogServers(): CatalogServer[] {
  return [...CATALOG.servers.values()];
}

export function catalogServer(slug: string): CatalogServer | undefined {
  return CATALOG.servers.get(slug);
}

export interface CatalogFilter {
  category?: string;
  country?: string;
  q?: string;
}

/** The servers that match the filter: the catalog's, or the given ones (a project's generated providers). */
export function filterCatalog(filter: CatalogFilter, servers = catalogServers()): CatalogServer[] {
  const q = filter.q?.trim().toLowerCase();
  return servers.filter(
    (s) =>
      (!filter.category || s.category === filter.category) &&
      (!filter.country || s.country === filter.country) &&
      (!q ||
        [s.id, s.name, s.description ?? '', s.category, ...s.tools.map((t) => t.name)].some((text) =>
          text.toLowerCase().includes(q),
        )),
  );
}

/** The fields the account supplies when it connects (OAuth tokens are filled by the gateway). */
export function userFields(s: CatalogServer): CatalogField[] {
  return s.fields.filter((f) => !f.managed);
}

/**
 * The route that connects a project to a server, as a hint in refusals: an OAuth server is connected
 * through its authorization flow (its connections route refuses a pasted credential), any other through
 * a pasted credential.
 */
export function connectRoute(server: Pick<CatalogServer, 'id' | 'auth_type'>): string {
  return server.auth_type === 'oauth'
    ? `POST /v1/providers/${server.id}/oauth/authorize`
    : `POST /v1/providers/${server.id}/connections`;
}

export type EngineStatus = 'none' | 'available' | 'quarantined';

/** What the catalog says of provisioning a server: none without a descriptor, else whether it is quarantined. */
export function engineStatus(server: CatalogServer, quarantined: ReadonlySet<string>): EngineStatus {
  if (!server.provisioning) return 'none';
  return quarantined.has(server.id) ? 'quarantined' : 'available';
}
