// The tool-search classifier: one chat-completions call to an OpenAI-compatible endpoint that names the
// tools fitting an intent. Its answer is trusted only as far as it checks out: unknown tool names are
// dropped, confidences clamped to 0..1; any failure (network, status, shape, time) is a ClassifierFailed,
// which the caller answers with the lexical fallback.
import { byConfidence } from '../../domain/tools/search';
import type { ToolClassifierSettings } from '../../runtime/config';

export interface ClassifiedHit {
  tool_name: string;
  confidence: number;
  rationale: string;
}

export class ClassifierFailed extends Error {
  constructor(readonly reason: string) {
    super(`tool classifier failed: ${reason}`);
    this.name = 'ClassifierFailed';
  }
}

export interface ToolSummary {
  name: string;
  description: string;
}

const SYSTEM =
  'You route an AI agent\'s intent to the tools of a payments gateway. Answer only JSON: {"hits":[{"tool_name":"<one of the listed names>","confidence":<0..1>,"rationale":"<one sentence>"}]}, best first.';

function hitsOf(content: string, known: Set<string>, limit: number): ClassifiedHit[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    throw new ClassifierFailed('the answer is not JSON');
  }
  const hits = (parsed as { hits?: unknown }).hits;
  if (!Array.isArray(hits)) throw new ClassifierFailed('the answer has no hits list');
  const out: ClassifiedHit[] = [];
  for (const hit of hits as Array<Record<string, unknown>>) {
    if (
      typeof hit?.tool_name !== 'string' ||
      !known.has(hit.tool_name) ||
      out.some((h) => h.tool_name === hit.tool_name)
    )
      continue;
    const confidence =
      typeof hit.confidence === 'number' && Number.isFinite(hit.confidence)
        ? Math.min(1, Math.max(0, hit.confidence))
        : 0;
    out.push({
      tool_name: hit.tool_name,
      confidence,
      rationale: typeof hit.rationale === 'string' ? hit.rationale.slice(0, 500) : '',
    });
  }
  if (out.length === 0) throw new ClassifierFailed('the answer names no known tool');
  // Sorted before the cut: a model that lists a likelier tool late still has it kept.
  return byConfidence(out).slice(0, limit);
}

export async function classifyIntent(
  settings: ToolClassifierSettings,
  intent: string,
  tools: ToolSummary[],
  limit: number,
): Promise<ClassifiedHit[]> {
  const catalog = tools.map((tool) => `- ${tool.name}: ${tool.description}`).join('\n');
  let response: Response;
  try {
    response = await fetch(`${settings.url.replace(/\/+$/, '')}/chat/completions`, {
      method: 'POST',
      signal: AbortSignal.timeout(settings.timeoutMs),
      headers: {
        'content-type': 'application/json',
        ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}),
      },
      body: JSON.stringify({
        model: settings.model,
        temperature: 0,
        response_format: { type: 'json_object' },
        messages: [
          { role: 'system', content: `${SYSTEM}\nTools:\n${catalog}` },
          { role: 'user', content: `Intent: ${intent}\nAt most ${limit} hits.` },
        ],
      }),
    });
  } catch (error) {
    throw new ClassifierFailed((error as Error).name === 'TimeoutError' ? 'timed out' : 'unreachable');
  }
  if (!response.ok) throw new ClassifierFailed(`answered ${response.status}`);
  const body = (await response.json().catch(() => undefined)) as
    { choices?: Array<{ message?: { content?: unknown } }> } | undefined;
  const content = body?.choices?.[0]?.message?.content;
  if (typeof content !== 'string') throw new ClassifierFailed('the answer has no message content');
  return hitsOf(content, new Set(tools.map((tool) => tool.name)), limit);
}
