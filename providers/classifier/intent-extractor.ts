// The free-form intent extractor of meta-tool discovery: the configured OpenAI-compatible endpoint turns a
// sentence into the structured intent. Anything but a usable intent (network, status, shape, time) is an
// ExtractorFailed; the caller answers 502.
import type { ToolClassifierSettings } from '../../runtime/config';
import type { DiscoverIntent } from '../../domain/tools/discover';

export class ExtractorFailed extends Error {
  constructor(readonly reason: string) {
    super(`intent extractor failed: ${reason}`);
    this.name = 'ExtractorFailed';
  }
}

const SYSTEM =
  'Turn a payment request into JSON: {"operation":"pay"|"pay_bill"|"collect","amount_minor":"<digits>","currency":"<ISO code>","country":"<ISO 3166 alpha-2>","urgency":"low"|"normal"|"high","recipient_kind":"person"|"business"|"pix_key"|"bank_account"|"wallet_address"|"bill"}. Omit what the text does not say. Answer only the JSON.';

const FIELDS: Record<string, RegExp> = {
  operation: /^[a-z_]{1,64}$/,
  amount_minor: /^[0-9]{1,18}$/,
  currency: /^[A-Z]{3,5}$/,
  country: /^[A-Z]{2}$/,
  urgency: /^(low|normal|high)$/,
  recipient_kind: /^[a-z_]{1,64}$/,
};

export async function extractIntent(settings: ToolClassifierSettings, text: string): Promise<DiscoverIntent> {
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
          { role: 'system', content: SYSTEM },
          { role: 'user', content: text },
        ],
      }),
    });
  } catch (error) {
    throw new ExtractorFailed((error as Error).name === 'TimeoutError' ? 'timed out' : 'unreachable');
  }
  if (!response.ok) throw new ExtractorFailed(`answered ${response.status}`);
  const body = (await response.json().catch(() => undefined)) as
    { choices?: Array<{ message?: { content?: unknown } }> } | undefined;
  const content = body?.choices?.[0]?.message?.content;
  let parsed: Record<string, unknown>;
  try {
    parsed = typeof content === 'string' ? (JSON.parse(content) as Record<string, unknown>) : {};
  } catch {
    throw new ExtractorFailed('the answer is not JSON');
  }
  // Only well-formed fields are kept (the patterns the structured intent's schema states); an answer
  // without an operation produced nothing usable.
  const field = (name: string): string | undefined => {
    const value = parsed[name];
    return typeof value === 'string' && FIELDS[name].test(value) ? value : undefined;
  };
  const operation = field('operation');
  if (!operation) throw new ExtractorFailed('the answer names no operation');
  const intent: DiscoverIntent = { operation };
  for (const name of ['amount_minor', 'currency', 'country', 'urgency', 'recipient_kind'] as const) {
    const value = field(name);
    if (value === undefined) continue;
    if (name !== 'urgency') intent[name] = value;
    else if (value === 'low' || value === 'normal' || value === 'high') intent.urgency = value;
  }
  return intent;
}
