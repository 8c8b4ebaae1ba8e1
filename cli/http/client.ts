// The one HTTP client of the CLI: openapi-fetch typed by the generated `paths`, with the credential,
// `--verbose` (the exchange on stderr, secrets redacted) and network failures turned into exit code 3.
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from '../generated/api';
import { networkError } from '../exit';
import { redactBody, redactHeaders } from './redact';

export type GatewayApi = Client<paths>;

export interface ClientOptions {
  baseUrl: string;
  credential?: string;
  verbose?: boolean;
  log?: (line: string) => void;
}

function verboseMiddleware(log: (line: string) => void): Middleware {
  return {
    async onRequest({ request }) {
      log(`> ${request.method} ${request.url}`);
      for (const line of redactHeaders(request.headers)) log(`> ${line}`);
      if (request.body) log(`> ${redactBody(await request.clone().text())}`);
      return undefined;
    },
    async onResponse({ response }) {
      log(`< ${response.status} ${response.statusText}`);
      for (const line of redactHeaders(response.headers)) log(`< ${line}`);
      // A stream is printed as it arrives, not buffered here.
      if (!(response.headers.get('content-type') ?? '').includes('text/event-stream'))
        log(`< ${redactBody(await response.clone().text())}`);
      return undefined;
    },
  };
}

export function apiClient(options: ClientOptions): GatewayApi {
  const client = createClient<paths>({
    baseUrl: options.baseUrl,
    headers: options.credential ? { Authorization: `Bearer ${options.credential}` } : {},
  });
  if (options.verbose)
    client.use(verboseMiddleware(options.log ?? ((line) => process.stderr.write(`${line}\n`))));
  return client;
}

/** Runs a call, turning a refused connection, a DNS failure or a reset into the network outcome. */
export async function reach<T>(baseUrl: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw networkError(
      `cannot reach ${baseUrl}: ${cause?.code ?? cause?.message ?? (error as Error).message}`,
    );
  }
}
