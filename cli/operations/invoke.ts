// Sends one operation through the openapi-fetch client and prints its answer: a JSON body, or each
// server-sent event as it arrives. Shared by the generated commands and the raw `get|post|…` ones.
import { readFileSync } from 'node:fs';
import { resolveTarget, type GlobalOptions } from '../auth/credential';
import { apiClient, reach } from '../http/client';
import { readEvents } from '../http/sse';
import { usageError } from '../exit';
import { apiFailure, outputMode, printSuccess } from '../output/render';
import type { Method } from './document';

export interface Call {
  method: Method;
  /** An OpenAPI path template (`/v1/wallets/{id}`) with its values, or a literal path. */
  path: string;
  pathValues?: Record<string, string>;
  query?: Record<string, unknown>;
  /** The body, already serialized (see `jsonBody`), or nothing. */
  body?: string;
}

export interface Data {
  value: unknown;
  /** The text as given: sent byte for byte when no flag adds to it, so no number is rounded. */
  text: string;
}

/** `--data '{…}'`, `--data @file.json` or `--data -` (stdin); the value must be JSON. */
export function readData(raw: string | undefined): Data | undefined {
  if (raw === undefined) return undefined;
  let text = raw;
  try {
    if (raw === '-') text = readFileSync(0, 'utf8');
    else if (raw.startsWith('@')) text = readFileSync(raw.slice(1), 'utf8');
  } catch (error) {
    throw usageError(
      `--data: cannot read ${raw === '-' ? 'stdin' : raw.slice(1)}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  try {
    return { value: JSON.parse(text), text };
  } catch {
    throw usageError(`--data: not valid JSON${raw.startsWith('@') ? ` in ${raw.slice(1)}` : ''}`);
  }
}

export async function invoke(call: Call, options: GlobalOptions, needsCredential = true): Promise<void> {
  const mode = outputMode(options.json);
  const target = resolveTarget(options);
  const credential = needsCredential ? await target.credential() : undefined;
  const client = apiClient({ baseUrl: target.baseUrl, credential, verbose: options.verbose });
  // The generated `paths` type names every documented path; a command reaches them by value, so the
  // call is typed at the client's boundary rather than per path.
  const request = client.request as unknown as (
    method: string,
    url: string,
    init: Record<string, unknown>,
  ) => Promise<{ response: Response; data?: unknown; error?: unknown }>;
  const result = await reach(target.baseUrl, () =>
    request(call.method, call.path, {
      params: { path: call.pathValues ?? {}, query: call.query ?? {} },
      ...(call.body === undefined ? {} : { body: call.body, bodySerializer: (text: string) => text }),
      headers: {
        Accept: 'application/json, text/event-stream',
        ...(call.body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      parseAs: 'stream',
    }),
  );
  const response = result.response;
  const contentType = response.headers.get('content-type') ?? '';
  if (response.ok && contentType.includes('text/event-stream') && response.body) {
    await reach(target.baseUrl, () =>
      readEvents(response.body as ReadableStream<Uint8Array>, (event) => {
        if (mode.json)
          mode.out(JSON.stringify({ id: event.id, event: event.event, data: parseOrText(event.data) }));
        else mode.out(`${event.event}${event.id ? ` [${event.id}]` : ''}: ${event.data}`);
      }),
    );
    return;
  }
  if (!response.ok) {
    // openapi-fetch has read an error body already: JSON comes back parsed, anything else as text.
    const text =
      result.error === undefined
        ? ''
        : typeof result.error === 'string'
          ? result.error
          : JSON.stringify(result.error);
    throw apiFailure(mode, response.status, text, response.headers.get('x-request-id'));
  }
  const text = response.bodyUsed ? '' : await reach(target.baseUrl, () => response.text());
  printSuccess(mode, text);
}

function parseOrText(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return data;
  }
}
