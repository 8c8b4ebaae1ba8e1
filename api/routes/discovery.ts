// Discovery for agents: `POST /v1/tools/search` ranks the registry's tools for an intent, through the
// configured classifier (GATEWAY_TOOL_CLASSIFIER_URL) when there is one, else, or when it fails, through
// the lexical BM25 ranking; either way 200. The caller's project's own generated providers rank beside
// the catalog's, for that project only. `POST /v1/meta-tools/discover` resolves an intent (structured,
// or free-form through the configured extractor) to the tool and rail that should carry it.
import { performance } from 'node:perf_hooks';
import { ApiError } from '../../domain/errors';
import { projectGenerated } from '../../domain/generated-servers/provider-lookup';
import { discover, type DiscoverIntent } from '../../domain/tools/discover';
import { allTools } from '../../domain/tools/registry';
import { searchTools } from '../../domain/tools/search';
import { publishedToolServers } from '../../domain/tool-servers/servers';
import { tenantToolSpecs } from '../../domain/tool-servers/tool-specs';
import { ExtractorFailed, extractIntent } from '../../providers/classifier/intent-extractor';
import { ClassifierFailed, classifyIntent } from '../../providers/classifier/tool-classifier';
import { ErrorEnvelope } from '../../schema/http/common';
import {
  MetaToolDiscover,
  MetaToolDiscovery,
  TOOL_SEARCH_CEILING,
  ToolSearch,
  ToolSearchResult,
} from '../../schema/http/discovery';
import { route, type AnyRoute } from '../route';

export const discoveryRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/v1/tools/search',
    auth: 'key',
    scope: 'servers:read',
    tags: ['Discovery'],
    operationId: 'searchTools',
    summary: 'Find the tools that fit an intent',
    description: `Ranks every tool of the registry (the gateway's own, the catalog providers', tenants' published tool servers of the caller's environment, and the project's own published generated providers, archived ones excepted). With a classifier configured it answers \`source: llm\`; without one, or when it fails, a BM25 ranking over tool names, descriptions and input schemas answers \`source: fallback\`. \`limit\` has a ceiling of ${TOOL_SEARCH_CEILING}.`,
    body: ToolSearch,
    responses: {
      200: { description: 'The ranked hits', schema: ToolSearchResult },
      400: { description: '`invalid_body` (details.issues)', schema: ErrorEnvelope },
    },
    async handler({ deps, principal, body }) {
      const started = performance.now();
      const limit = Math.min(body.limit, TOOL_SEARCH_CEILING);
      const settings = deps.config.toolClassifier;
      // Tenants' published tool servers of the caller's environment, and the project's own generated
      // providers, rank beside the catalog.
      const [published, generated] = await Promise.all([
        publishedToolServers(deps.db, principal.environment),
        projectGenerated(deps.db, principal),
      ]);
      const tenantTools = [
        ...published.flatMap(tenantToolSpecs),
        ...generated.flatMap((entry) => entry.tools),
      ];
      let answer:
        | {
            hits: Array<{ tool_name: string; confidence: number; rationale: string }>;
            source: 'llm' | 'fallback';
          }
        | undefined;
      if (settings) {
        try {
          answer = {
            hits: await classifyIntent(
              settings,
              body.intent,
              [...allTools(), ...tenantTools].map((t) => ({ name: t.name, description: t.description })),
              limit,
            ),
            source: 'llm',
          };
        } catch (error) {
          if (!(error instanceof ClassifierFailed)) throw error;
          deps.log.warn('tool classifier failed; answering with the lexical ranking', {
            reason: error.reason,
          });
        }
      }
      answer ??= { hits: searchTools(body.intent, limit, tenantTools), source: 'fallback' };
      return {
        body: {
          intent: body.intent,
          hits: answer.hits,
          elapsed_ms: Math.round(performance.now() - started),
          source: answer.source,
        },
      };
    },
  }),
  route({
    method: 'post',
    path: '/v1/meta-tools/discover',
    auth: 'key',
    scope: 'servers:read',
    tags: ['Discovery'],
    operationId: 'discoverMetaTool',
    summary: 'Resolve an intent to the tool and rail that should carry it',
    description:
      "A structured intent is resolved directly; a free-form one (`intent` as text) goes through the configured extractor (the classifier endpoint). Only rails of connected providers are eligible; each is scored from what the gateway has measured: the project's recorded tool calls of that route (success rate, median latency, fees paid) and the catalog's rail fee for `amount_minor` (`cost_minor` is their sum), weighing latency more when `urgency` is `high`. Equal scores go to the cheaper route, then to the one with more recorded calls. Tools that carry no rail (a generated provider's, like a catalog provider's other tools) are found with `POST /v1/tools/search`.",
    body: MetaToolDiscover,
    responses: {
      200: { description: 'The recommended route and score-ordered alternatives', schema: MetaToolDiscovery },
      400: {
        description:
          '`invalid_body` (the body matched no shape; details.issues), `unknown_operation` (no tool ships it; details.detail)',
        schema: ErrorEnvelope,
      },
      424: {
        description:
          '`eligibility_empty` (connect a provider: details.providers, details.hints with the route that connects each, details.hint the first), `direction_blocked` (no connected rail carries the currency to the country for that recipient; details.rails)',
        schema: ErrorEnvelope,
      },
      501: {
        description: '`extractor_not_configured`: a free-form intent with no extractor wired',
        schema: ErrorEnvelope,
      },
      502: {
        description: '`extractor_failed`: the extractor failed or produced no usable intent',
        schema: ErrorEnvelope,
      },
    },
    async handler({ deps, principal, body }) {
      let intent: DiscoverIntent;
      if (typeof body.intent === 'string') {
        const settings = deps.config.toolClassifier;
        // Tenants' published tool servers of the caller's environment rank beside the catalog.
        const tenantTools = (await publishedToolServers(deps.db, principal.environment)).flatMap(
          tenantToolSpecs,
        );
        if (!settings)
          throw new ApiError(
            501,
            'extractor_not_configured',
            'Free-form intents need an extractor (GATEWAY_TOOL_CLASSIFIER_URL); send a structured intent instead',
          );
        try {
          intent = await extractIntent(settings, body.intent);
        } catch (error) {
          if (!(error instanceof ExtractorFailed)) throw error;
          throw new ApiError(
            502,
            'extractor_failed',
            'The intent extractor failed or produced nothing usable; send a structured intent',
            { reason: error.reason },
          );
        }
      } else {
        intent = body.intent;
      }
      return { body: await discover(deps.db, principal, intent) };
    },
  }),
];
