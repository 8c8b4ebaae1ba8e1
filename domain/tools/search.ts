// Lexical tool search: BM25 (MiniSearch) over every registry tool's name, description and input schema
// (property names and their descriptions), built once per process since the registry is static. The
// confidence of a hit is its score relative to the best hit, scaled by how many of the intent's words it
// matched, so a hit matching one word of five never looks certain.
import MiniSearch from 'minisearch';
import { allTools } from './registry';
import type { ToolSpec } from './tool-spec';

export interface SearchHit {
  tool_name: string;
  confidence: number;
  rationale: string;
}

interface ToolDocument {
  id: string;
  name: string;
  description: string;
  schema: string;
}

/** Words of a tool name (`pix-psp.pix_key_lookup` → pix psp pix key lookup) as well as of prose. */
const tokenize = (text: string): string[] =>
  text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 1);

// Words that say nothing about which tool is meant.
const STOP = new Set([
  'the',
  'to',
  'of',
  'and',
  'or',
  'for',
  'an',
  'in',
  'on',
  'my',
  'me',
  'with',
  'by',
  'from',
  'is',
  'it',
  'be',
  'as',
  'at',
  'this',
  'that',
  'want',
  'need',
  'please',
  'some',
  'do',
]);

function schemaText(schema: Record<string, unknown>): string {
  const properties = (schema.properties ?? {}) as Record<string, { description?: string }>;
  return Object.entries(properties)
    .map(([name, property]) => `${name} ${property.description ?? ''}`)
    .join(' ');
}

/**
 * Hits in the order the answer promises: confidence descending. The sort is stable, so hits of equal
 * confidence keep the ranker's own order (BM25's score, the classifier's "best first").
 */
export function byConfidence<T extends { confidence: number }>(hits: readonly T[]): T[] {
  return [...hits].sort((a, b) => b.confidence - a.confidence);
}

let index: MiniSearch<ToolDocument> | undefined;
/** The catalog's index, built once; with tenant tools (they change at run time) a fresh one per search. */
function toolIndex(extra: ToolSpec[] = []): MiniSearch<ToolDocument> {
  if (index && extra.length === 0) return index;
  const built = new MiniSearch<ToolDocument>({
    fields: ['name', 'description', 'schema'],
    tokenize,
    processTerm: (term) => (STOP.has(term) ? null : term),
    searchOptions: { boost: { name: 3, description: 1.5 }, prefix: true, fuzzy: 0.2 },
  });
  built.addAll(
    [...allTools(), ...extra].map((tool: ToolSpec) => ({
      id: tool.name,
      name: tool.name,
      description: tool.description,
      schema: schemaText(tool.inputSchema),
    })),
  );
  if (extra.length === 0) index = built;
  return built;
}

/** Ranks the registry's tools, and `extra` ones (tenants' published tools), for an intent. */
export function searchTools(intent: string, limit: number, extra: ToolSpec[] = []): SearchHit[] {
  const queryWords = new Set(tokenize(intent).filter((word) => !STOP.has(word)));
  if (queryWords.size === 0) return [];
  const results = toolIndex(extra).search([...queryWords].join(' '));
  const top = results[0]?.score ?? 0;
  // Confidence weighs the score by how much of the intent matched, so it can order hits differently.
  const hits = results.map((result) => {
    const fieldsByTerm = result.match as Record<string, string[]>;
    const coverage = Math.min(1, result.queryTerms.length / queryWords.size);
    const matched = Object.entries(fieldsByTerm).map(
      ([term, fields]) => `"${term}" in ${fields.join(' and ')}`,
    );
    return {
      tool_name: result.id as string,
      confidence: Math.round((result.score / top) * coverage * 1000) / 1000,
      rationale: `Matched ${matched.join(', ')}`,
    };
  });
  return byConfidence(hits).slice(0, limit);
}
