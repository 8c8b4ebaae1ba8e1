// Tenant tool servers in PostgreSQL: create (with its payout and fee wallets and its priced tools, one
// transaction), read, list, update the listing, price or pause a tool, and delete (the priced tools go; the
// server row stays, hidden, so its slug and its settled charges keep their meaning). Also the published
// servers other projects see: active, not deleted, same environment.
import { sql, UniqueIntegrityConstraintViolationError } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabasePool, DatabaseTransactionConnection } from '../../runtime/database';
import { ApiError } from '../errors';
import { recordEvent, type EventScope } from '../events/record';
import { prefixedId } from '../ids';
import type { SealedSecret } from '../vault/envelope';
import type { Currency } from '../../contracts/currencies';

export const toolServerRow = z.object({
  id: z.string(),
  org_id: z.string(),
  project_id: z.string(),
  environment: z.enum(['live', 'test']),
  slug: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  overview_md: z.string().nullable(),
  category: z.string().nullable(),
  upstream_url: z.string(),
  consumer_id: z.string().nullable(),
  currency: z.string(),
  platform_fee_bps: z.number(),
  auth_header: z.string().nullable(),
  payout_wallet_id: z.string(),
  fee_wallet_id: z.string(),
  active: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ToolServerRow = z.infer<typeof toolServerRow>;

export const serverToolRow = z.object({
  server_id: z.string(),
  tool_name: z.string(),
  description: z.string(),
  input_schema: z.record(z.unknown()),
  price_minor: z.bigint(),
  active: z.boolean(),
});
export type ServerToolRow = z.infer<typeof serverToolRow>;

export type ToolServer = ToolServerRow & { tools: ServerToolRow[] };

const COLUMNS = sql.fragment`id, org_id, project_id, environment, slug, name, description, overview_md, category, upstream_url,
  consumer_id, currency, platform_fee_bps, auth_header, payout_wallet_id, fee_wallet_id, active, created_at, updated_at`;
const TOOL_COLUMNS = sql.fragment`server_id, tool_name, description, input_schema, price_minor, active`;

const notFound = () => new ApiError(404, 'not_found', "No such tool server in the caller's project");

export interface NewToolServer {
  id: string;
  slug: string;
  name: string;
  description: string | null;
  overviewMd: string | null;
  category: string | null;
  upstreamUrl: string;
  consumerId: string | null;
  currency: Currency;
  platformFeeBps: number;
  auth: { header: string; sealed: SealedSecret } | null;
  tools: Array<{
    name: string;
    description: string;
    inputSchema: Record<string, unknown>;
    priceMinor: bigint;
  }>;
}

export const newToolServerId = (): string => prefixedId('tsv');

async function insertWallet(
  tx: DatabaseTransactionConnection,
  scope: EventScope,
  displayName: string,
  currency: Currency,
  metadata: Record<string, unknown>,
): Promise<string> {
  const id = prefixedId('wal');
  await tx.query(sql.unsafe`
    INSERT INTO wallets (id, org_id, project_id, display_name, currency, metadata)
    VALUES (${id}, ${scope.orgId}, ${scope.projectId}, ${displayName}, ${currency}, ${sql.jsonb(metadata as never)})`);
  await tx.query(sql.unsafe`
    INSERT INTO wallet_balances (wallet_id, org_id, project_id, currency) VALUES (${id}, ${scope.orgId}, ${scope.projectId}, ${currency})`);
  await recordEvent(tx, scope, 'wallet.created', { wallet_id: id, currency, agent_id: null });
  return id;
}

export async function createToolServer(
  db: DatabasePool,
  scope: EventScope,
  input: NewToolServer,
): Promise<ToolServer> {
  try {
    return await insertToolServer(db, scope, input);
  } catch (error) {
    // Two creates racing for one slug: the unique index decides, the loser gets the same answer as a late one.
    if (error instanceof UniqueIntegrityConstraintViolationError)
      throw new ApiError(409, 'slug_conflict', `The slug "${input.slug}" is taken`, { slug: input.slug });
    throw error;
  }
}

async function insertToolServer(
  db: DatabasePool,
  scope: EventScope,
  input: NewToolServer,
): Promise<ToolServer> {
  return db.transaction(async (tx) => {
    // Consumers belong to one project: another project's, even of the same organization, is as unknown
    // as one that never existed, so the answer says nothing about ids elsewhere.
    if (input.consumerId) {
      const known = await tx.exists(sql.unsafe`
        SELECT 1 FROM consumers
        WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND id = ${input.consumerId}`);
      if (!known)
        throw new ApiError(404, 'consumer_not_found', "No such consumer in the caller's project", {
          consumer_id: input.consumerId,
        });
    }
    // Sessions name tool servers and generated servers alike by slug: one namespace for both.
    const taken = await tx.exists(sql.unsafe`
      SELECT 1 FROM tool_servers WHERE slug = ${input.slug}
      UNION ALL SELECT 1 FROM generated_servers WHERE slug = ${input.slug}`);
    if (taken)
      throw new ApiError(409, 'slug_conflict', `The slug "${input.slug}" is taken`, { slug: input.slug });
    const meta = { tool_server_id: input.id, consumer_id: input.consumerId };
    const payout = await insertWallet(tx, scope, `Earnings: ${input.slug}`.slice(0, 120), input.currency, {
      ...meta,
      role: 'tool_server_payout',
    });
    const fees = await insertWallet(tx, scope, `Platform fees: ${input.slug}`.slice(0, 120), input.currency, {
      ...meta,
      role: 'tool_server_fee_accrual',
    });
    const row = await tx.one(sql.type(toolServerRow)`
      INSERT INTO tool_servers (id, org_id, project_id, environment, slug, name, description, overview_md, category,
        upstream_url, consumer_id, currency, platform_fee_bps, auth_header, auth_ciphertext, auth_wrapped_key,
        auth_key_ref, payout_wallet_id, fee_wallet_id)
      VALUES (${input.id}, ${scope.orgId}, ${scope.projectId}, ${scope.environment}, ${input.slug}, ${input.name},
        ${input.description}, ${input.overviewMd}, ${input.category}, ${input.upstreamUrl}, ${input.consumerId},
        ${input.currency}, ${input.platformFeeBps}, ${input.auth?.header ?? null}, ${input.auth?.sealed.ciphertext ?? null},
        ${input.auth?.sealed.wrappedKey ?? null}, ${input.auth?.sealed.keyRef ?? null}, ${payout}, ${fees})
      RETURNING ${COLUMNS}`);
    for (const tool of input.tools) {
      await tx.query(sql.unsafe`
        INSERT INTO tool_server_tools (server_id, tool_name, description, input_schema, price_minor)
        VALUES (${input.id}, ${tool.name}, ${tool.description}, ${sql.jsonb(tool.inputSchema as never)}, ${tool.priceMinor.toString()})`);
    }
    await recordEvent(tx, scope, 'tool_server.created', { tool_server_id: row.id, slug: row.slug });
    return { ...row, tools: await toolsOf(tx, row.id) };
  });
}

async function toolsOf(db: CommonQueryMethods, serverId: string): Promise<ServerToolRow[]> {
  return [
    ...(await db.any(sql.type(serverToolRow)`
    SELECT ${TOOL_COLUMNS} FROM tool_server_tools WHERE server_id = ${serverId} ORDER BY tool_name`)),
  ];
}

async function withTools(db: CommonQueryMethods, rows: readonly ToolServerRow[]): Promise<ToolServer[]> {
  if (rows.length === 0) return [];
  const tools = await db.any(sql.type(serverToolRow)`
    SELECT ${TOOL_COLUMNS} FROM tool_server_tools WHERE server_id = ANY(${sql.array(
      rows.map((r) => r.id),
      'text',
    )}) ORDER BY tool_name`);
  return rows.map((row) => ({ ...row, tools: tools.filter((t) => t.server_id === row.id) }));
}

export async function getToolServer(
  db: CommonQueryMethods,
  scope: EventScope,
  id: string,
): Promise<ToolServer> {
  const row = await db.maybeOne(sql.type(toolServerRow)`
    SELECT ${COLUMNS} FROM tool_servers
    WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND id = ${id} AND deleted_at IS NULL`);
  if (!row) throw notFound();
  return { ...row, tools: await toolsOf(db, row.id) };
}

export async function listToolServers(db: CommonQueryMethods, scope: EventScope): Promise<ToolServer[]> {
  return withTools(
    db,
    await db.any(sql.type(toolServerRow)`
    SELECT ${COLUMNS} FROM tool_servers
    WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND deleted_at IS NULL ORDER BY created_at DESC, id`),
  );
}

/** Published servers a project of this environment can open: active, not deleted, with their active tools. */
export async function publishedToolServers(
  db: CommonQueryMethods,
  environment: 'live' | 'test',
  slugs?: string[],
): Promise<ToolServer[]> {
  const rows = await db.any(sql.type(toolServerRow)`
    SELECT ${COLUMNS} FROM tool_servers
    WHERE environment = ${environment} AND active AND deleted_at IS NULL
      ${slugs ? sql.fragment`AND slug = ANY(${sql.array(slugs, 'text')})` : sql.fragment``}
    ORDER BY slug`);
  return (await withTools(db, rows)).map((s) => ({ ...s, tools: s.tools.filter((t) => t.active) }));
}

/** Whether a tenant tool server of the environment, not deleted, holds this slug. */
export async function toolServerSlugExists(
  db: CommonQueryMethods,
  environment: 'live' | 'test',
  slug: string,
): Promise<boolean> {
  return db.oneFirst(sql.type(z.object({ found: z.boolean() }))`
    SELECT EXISTS (
      SELECT 1 FROM tool_servers WHERE environment = ${environment} AND slug = ${slug} AND deleted_at IS NULL
    ) AS found`);
}

export async function updateToolServer(
  db: DatabasePool,
  scope: EventScope,
  id: string,
  patch: {
    name?: string;
    description?: string | null;
    overviewMd?: string | null;
    category?: string | null;
    active?: boolean;
  },
): Promise<ToolServer> {
  return db.transaction(async (tx) => {
    const current = await getToolServer(tx, scope, id);
    const has = (key: keyof typeof patch) =>
      Object.prototype.hasOwnProperty.call(patch, key) && patch[key] !== undefined;
    await tx.query(sql.unsafe`
      UPDATE tool_servers SET
        name = ${has('name') ? patch.name! : current.name},
        description = ${has('description') ? patch.description! : current.description},
        overview_md = ${has('overviewMd') ? patch.overviewMd! : current.overview_md},
        category = ${has('category') ? patch.category! : current.category},
        active = ${has('active') ? patch.active! : current.active},
        updated_at = now()
      WHERE id = ${id}`);
    await recordEvent(tx, scope, 'tool_server.updated', { tool_server_id: id, fields: Object.keys(patch) });
    return getToolServer(tx, scope, id);
  });
}

export async function updateServerTool(
  db: DatabasePool,
  scope: EventScope,
  id: string,
  toolName: string,
  patch: { priceMinor?: bigint; active?: boolean },
): Promise<ToolServer> {
  return db.transaction(async (tx) => {
    await getToolServer(tx, scope, id);
    const updated = await tx.maybeOne(sql.unsafe`
      UPDATE tool_server_tools SET
        price_minor = coalesce(${patch.priceMinor?.toString() ?? null}::bigint, price_minor),
        active = coalesce(${patch.active ?? null}::boolean, active),
        updated_at = now()
      WHERE server_id = ${id} AND tool_name = ${toolName} RETURNING tool_name`);
    if (!updated)
      throw new ApiError(404, 'tool_not_found', `The server publishes no tool "${toolName}"`, {
        tool: toolName,
      });
    await tx.query(sql.unsafe`UPDATE tool_servers SET updated_at = now() WHERE id = ${id}`);
    await recordEvent(tx, scope, 'tool_server.updated', {
      tool_server_id: id,
      tool_name: toolName,
      price_minor: patch.priceMinor?.toString() ?? null,
      active: patch.active ?? null,
    });
    return getToolServer(tx, scope, id);
  });
}

/** Removes the priced tools and hides the server; calls already authorized carry their own price and finish. */
export async function deleteToolServer(db: DatabasePool, scope: EventScope, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    await getToolServer(tx, scope, id);
    await tx.query(sql.unsafe`DELETE FROM tool_server_tools WHERE server_id = ${id}`);
    await tx.query(
      sql.unsafe`UPDATE tool_servers SET deleted_at = now(), active = false, updated_at = now() WHERE id = ${id}`,
    );
    await recordEvent(tx, scope, 'tool_server.deleted', { tool_server_id: id });
  });
}
