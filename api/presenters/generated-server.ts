// Shapes a generated server for responses: the listing's row, and the detail a review reads (source,
// auth, base URLs, the credential check and every tool with the operation it calls).
import type {
  GeneratedServerDetailRow,
  GeneratedServerRow,
  GeneratedToolRow,
} from '../../domain/generated-servers/servers';

export function presentGeneratedServer(row: GeneratedServerRow) {
  return {
    id: row.id,
    name: row.name,
    version: row.version,
    description: row.description,
    status: row.status,
    tool_count: row.tool_count,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function presentGeneratedTool(tool: GeneratedToolRow) {
  const operation = tool.operation as { method: string; path: string };
  return {
    name: tool.name,
    operation: `${operation.method} ${operation.path}`,
    description: tool.description,
    exposed: tool.exposed,
    input_schema: tool.input_schema,
  };
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

export function presentGeneratedServerDetail(
  row: GeneratedServerDetailRow,
  tools: readonly GeneratedToolRow[],
) {
  return {
    ...presentGeneratedServer(row),
    slug: row.slug,
    published_version: row.published_version,
    published_at: row.published_at,
    source: {
      openapi: text(row.source.openapi),
      title: text(row.source.title),
      document_version: text(row.source.document_version),
      url: text(row.source.url),
    },
    auth: row.auth,
    base_urls: { live: row.base_urls.live ?? null, test: row.base_urls.test ?? null },
    verify: row.verify,
    tools: tools.map(presentGeneratedTool),
  };
}
