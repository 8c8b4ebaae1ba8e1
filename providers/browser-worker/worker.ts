// The browser worker: a remote headless-browser service that holds a merchant login for a person. A
// connect opens a fresh persistent context and a live session in it (the person signs in through the
// live view); the finish releases the session and keeps the context. Configured by
// PROVIDER_BROWSER_WORKER_URL (PROVIDER_BROWSER_WORKER_LIVE_URL for live keys); without it there is no
// worker and cart connect is unavailable.
import type { Environment } from '../../domain/tenancy/api-key-format';
import { providerEndpoint, type ProviderEndpoints } from '../../domain/providers/endpoints';

export interface OpenedSession {
  contextId: string;
  sessionId: string;
  /** Where the person watches and drives the session; the worker may not offer one (empty string). */
  liveViewUrl: string;
}

export interface BrowserWorker {
  /** Mints a new context and opens a session in it at `startUrl`. */
  openSession(input: { startUrl: string; reference: string }): Promise<OpenedSession>;
  /** Ends the session; the context and its cookies stay with the worker. */
  releaseSession(sessionId: string): Promise<void>;
}

/** The worker did not answer, or answered something other than what was asked. */
export class BrowserWorkerFailed extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
    this.name = 'BrowserWorkerFailed';
  }
}

async function call(
  baseUrl: string,
  path: string,
  body: unknown,
  timeoutMs: number,
): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    });
  } catch (error) {
    throw new BrowserWorkerFailed(`browser worker did not answer: ${(error as Error).message}`, null);
  }
  const parsed: unknown = await response.json().catch(() => null);
  if (!response.ok)
    throw new BrowserWorkerFailed(`browser worker answered ${response.status}`, response.status);
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new BrowserWorkerFailed('browser worker answered without a JSON object', response.status);
  return parsed as Record<string, unknown>;
}

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

export function browserWorkerAdapter(options: { baseUrl: string; timeoutMs: number }): BrowserWorker {
  const { baseUrl, timeoutMs } = options;
  return {
    async openSession({ startUrl, reference }) {
      const context = await call(baseUrl, '/v1/contexts', { reference }, timeoutMs);
      if (!nonEmpty(context.id)) throw new BrowserWorkerFailed('browser worker minted no context id', 200);
      const session = await call(
        baseUrl,
        '/v1/sessions',
        { context_id: context.id, start_url: startUrl, keep_alive: true, reference },
        timeoutMs,
      );
      if (!nonEmpty(session.id)) throw new BrowserWorkerFailed('browser worker opened no session id', 200);
      return {
        contextId: context.id,
        sessionId: session.id,
        liveViewUrl: typeof session.live_view_url === 'string' ? session.live_view_url : '',
      };
    },
    async releaseSession(sessionId) {
      await call(baseUrl, `/v1/sessions/${encodeURIComponent(sessionId)}/release`, {}, timeoutMs);
    },
  };
}

/** The worker of the caller's environment, or null when none is: a terminal condition for callers. */
export function configuredBrowserWorker(
  config: ProviderEndpoints & { providerTimeoutMs: number },
  environment: Environment,
): BrowserWorker | null {
  const baseUrl = providerEndpoint(config, 'browser_worker', environment);
  return baseUrl ? browserWorkerAdapter({ baseUrl, timeoutMs: config.providerTimeoutMs }) : null;
}
