// Discovery for agents: `POST /v1/tools/search` ranks the registry's tools for an intent, through the
// configured classifier (GATEWAY_TOOL_CLASSIFIER_URL) when there is one, else, or when it fails, through
// the lexical BM25 ranking; either way 200.
import { performance } from 'node:perf_hooks';
import { allTools } from '../../domain/tools/registry';
import { searchTools } from '../../domain/tools/search';
import { ClassifierFailed, classifyIntent } from '../../providers/classifier/tool-classifier';
import { ErrorEnvelope } from '../../schema/http/common';
import { TOOL_SEARCH_CEILING, ToolSearch, ToolSearchResult, type ToolSearchBody } from '../../schema/http/discovery';
import { route, type AnyRoute } from '../route';

export const discoveryRoutes: AnyRoute[] = [
  route<ToolSearchBody, unknown, Record<string, string>, 'key'>({
    method: 'post', path: '/v1/tools/search', auth: 'key', scope: 'servers:read', tags: ['Discovery'],
    operationId: 'searchTools', summary: 'Find the tools that fit an intent',
    description: `Ranks every tool of the registry (the gateway's own and the catalog providers'). With a classifier configured it answers \`source: llm\`; without one, or when it fails, a BM25 ranking over tool names, descriptions and input schemas answers \`source: fallback\`. \`limit\` has a ceiling of ${TOOL_SEARCH_CEILING}.`,
    body: ToolSearch,
    responses: { 200: { description: 'The ranked hits', schema: ToolSearchResult }, 400: { description: '`invalid_body` (details.issues)', schema: ErrorEnvelope } },
    async handler({ deps, body }) {
      const started = performance.now();
      const limit = Math.min(body.limit, TOOL_SEARCH_CEILING);
      const settings = deps.config.toolClassifier;
      let answer: { hits: Array<{ tool_name: string; confidence: number; rationale: string }>; source: 'llm' | 'fallback' } | undefined;
      if (settings) {
        try {
          answer = { hits: await classifyIntent(settings, body.intent, allTools().map((t) => ({ name: t.name, description: t.description })), limit), source: 'llm' };
        } catch (error) {
          if (!(error instanceof ClassifierFailed)) throw error;
          deps.log.warn('tool classifier failed; answering with the lexical ranking', { reason: error.reason });
        }
      }
      answer ??= { hits: searchTools(body.intent, limit), source: 'fallback' };
      return { body: { intent: body.intent, hits: answer.hits, elapsed_ms: Math.round(performance.now() - started), source: answer.source } };
    },
  }),
];
