// Tool search and meta-tool discovery: request schemas (validated) and response schemas (documented).
import type { JsonSchema } from './json-schema';

export const TOOL_SEARCH_CEILING = 5;

export const ToolSearch: JsonSchema = {
  type: 'object', required: ['intent'], additionalProperties: false,
  properties: {
    intent: { type: 'string', minLength: 1, maxLength: 1000, description: 'What the agent wants to do, in its own words.' },
    limit: { type: 'integer', minimum: 1, default: 3, description: `Hits wanted; a ceiling of ${TOOL_SEARCH_CEILING} applies (a larger value answers ${TOOL_SEARCH_CEILING}).` },
  },
};
export interface ToolSearchBody { intent: string; limit: number }

export const ToolSearchResult: JsonSchema = {
  type: 'object', required: ['intent', 'hits', 'elapsed_ms', 'source'],
  properties: {
    intent: { type: 'string' },
    hits: {
      type: 'array',
      items: {
        type: 'object', required: ['tool_name', 'confidence', 'rationale'],
        properties: { tool_name: { type: 'string' }, confidence: { type: 'number', minimum: 0, maximum: 1 }, rationale: { type: 'string' } },
      },
    },
    elapsed_ms: { type: 'integer' },
    source: { enum: ['llm', 'fallback'], description: '`llm` when the configured classifier answered; `fallback` for the lexical ranking (no classifier, or it failed).' },
  },
};
