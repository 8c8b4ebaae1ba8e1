// A published version of a generated server: the immutable snapshot a version row holds (name, auth,
// base URLs, the credential check and the exposed tools with their operations), and the catalog-shaped
// provider it serves as, so connections, verify-connection, tool calls and the proxy treat it as any
// catalog server.
import { z } from 'zod';
import { AUTH_TYPES } from '../../contracts/provider-auth-types';
import type { CatalogServer } from '../providers/catalog';
import type { GeneratedServerDetailRow, GeneratedToolRow } from './servers';

const field = z.object({
  name: z.string(),
  kind: z.string(),
  label: z.string(),
  header_name: z.string().nullable(),
});

const operation = z.object({
  method: z.string(),
  path: z.string(),
  params: z.array(
    z.object({ arg: z.string(), in: z.enum(['path', 'query', 'header', 'cookie']), name: z.string() }),
  ),
  body: z.object({ encoding: z.enum(['json', 'form', 'text']), contentType: z.string() }).nullable(),
  security: z.array(z.array(z.string())),
});

export const publishedSnapshot = z.object({
  slug: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  source_url: z.string().nullable(),
  auth: z.object({ auth_type: z.enum(AUTH_TYPES), schemes: z.array(z.string()), fields: z.array(field) }),
  base_urls: z.object({ live: z.string().nullable(), test: z.string().nullable() }),
  verify: z.object({ method: z.literal('GET'), path: z.string() }).nullable(),
  tools: z.array(
    z.object({
      name: z.string(),
      description: z.string(),
      input_schema: z.record(z.unknown()),
      operation,
    }),
  ),
});
export type PublishedSnapshot = z.infer<typeof publishedSnapshot>;

export function snapshotOf(
  server: GeneratedServerDetailRow,
  tools: readonly GeneratedToolRow[],
): PublishedSnapshot {
  const source = server.source as { url?: string | null };
  return publishedSnapshot.parse({
    slug: server.slug,
    name: server.name,
    description: server.description,
    source_url: source.url ?? null,
    auth: server.auth,
    base_urls: { live: server.base_urls.live ?? null, test: server.base_urls.test ?? null },
    verify: server.verify,
    tools: tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.input_schema,
      operation: tool.operation,
    })),
  });
}

export interface GeneratedOwner {
  serverId: string;
  version: number;
  orgId: string;
  projectId: string;
}

/** The published version as a catalog server: what every provider route and call path reads. */
export function providerOf(snapshot: PublishedSnapshot, owner: GeneratedOwner): CatalogServer {
  const home = snapshot.source_url ?? snapshot.base_urls.live ?? snapshot.base_urls.test ?? 'about:blank';
  return {
    id: snapshot.slug,
    name: snapshot.name,
    pkg: `generated/${snapshot.slug}@${owner.version}`,
    category: 'generated',
    country: 'ZZ',
    auth_type: snapshot.auth.auth_type,
    status: 'active',
    rail: null,
    description: snapshot.description,
    provider_docs_url: home,
    provider_homepage: home,
    provider_logo_url: 'about:blank',
    provider_logo_fallback_url: 'about:blank',
    subaccount_provisionable: false,
    endpoints: {},
    fields: snapshot.auth.fields,
    verify: snapshot.verify,
    tools: snapshot.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      moves_money: false,
      input_schema: tool.input_schema,
    })),
    generated: {
      ...owner,
      baseUrls: snapshot.base_urls,
      operations: Object.fromEntries(snapshot.tools.map((tool) => [tool.name, tool.operation])),
    },
  };
}
