// Generating a server: the document from the request (sent, or fetched from its URL under the proxy's
// destination rules), turned into a draft (tools, auth, base URLs) and stored with its tools in one
// transaction. A refused document, an unreachable URL or a taken slug leaves nothing behind.
import { ApiError } from '../../domain/errors';
import { readDocument } from '../../domain/generated-servers/document';
import { generateDraft, slugFor } from '../../domain/generated-servers/generate';
import {
  createGeneratedServer,
  listGeneratedTools,
  type GeneratedServerDetailRow,
  type GeneratedToolRow,
} from '../../domain/generated-servers/servers';
import { catalogServer } from '../../domain/providers/catalog';
import { BUILT_IN_SERVER_IDS } from '../../domain/tools/registry';
import { DocumentUnreachable, fetchDocument } from '../../providers/documents/fetch-document';
import type { GeneratedServerCreateBody } from '../../schema/http/generate';
import type { AppDeps } from '../deps';
import type { Principal } from '../principal';

async function documentOf(
  deps: AppDeps,
  principal: Principal,
  body: GeneratedServerCreateBody,
): Promise<unknown> {
  if (body.document_url === undefined) return body.document;
  try {
    return await fetchDocument(body.document_url, principal.environment, deps.config.providerTimeoutMs);
  } catch (error) {
    if (!(error instanceof DocumentUnreachable)) throw error;
    throw new ApiError(422, 'document_unreachable', error.message, {
      reason: error.reason,
      ...(error.status !== undefined ? { status: error.status } : {}),
    });
  }
}

export async function generateServer(
  deps: AppDeps,
  principal: Principal,
  body: GeneratedServerCreateBody,
): Promise<{ server: GeneratedServerDetailRow; tools: readonly GeneratedToolRow[] }> {
  const draft = generateDraft(readDocument(await documentOf(deps, principal, body)), {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.description !== undefined ? { description: body.description } : {}),
    ...(body.security_scheme !== undefined ? { securityScheme: body.security_scheme } : {}),
    ...(body.document_url !== undefined ? { documentUrl: body.document_url } : {}),
    ...(body.base_urls !== undefined ? { baseUrls: body.base_urls } : {}),
  });
  const slug = body.slug ?? slugFor(draft.name);
  // Catalog slugs and the gateway's built-in servers are taken for good.
  if (BUILT_IN_SERVER_IDS.includes(slug) || catalogServer(slug))
    throw new ApiError(409, 'slug_conflict', `The slug "${slug}" is taken`, { slug });
  const server = await createGeneratedServer(deps.db, principal, slug, draft);
  return { server, tools: await listGeneratedTools(deps.db, server.id) };
}
