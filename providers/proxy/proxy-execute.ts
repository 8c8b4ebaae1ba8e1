// The core of `proxy_execute`: one raw HTTP request to a connection's upstream base URL with the vault
// credential injected. Only the provider's own base URL is reachable; in live mode every resolved
// address must be public and the connection is pinned to the checked one; bodies and time are capped;
// the caller's own credential headers are dropped and the stored credential is never echoed back.
import { lookup } from 'node:dns/promises';
import type { CatalogServer } from '../../domain/providers/catalog';
import { catalogEndpoint, type ProviderEndpoints } from '../../domain/providers/endpoints';
import type { ConnectionRow } from '../../domain/providers/connections';
import type { SealedSecret } from '../../domain/vault/envelope';
import type { Environment } from '../../domain/tenancy/api-key-format';
import { callWithConnection, type ConnectionCallDeps } from '../connection-call';
import { isPublicAddress } from './address-policy';

export const PROXY_MAX_REQUEST_BYTES = 1024 * 1024;
export const PROXY_MAX_RESPONSE_BYTES = 5 * 1024 * 1024;

export interface ProxyRequest {
  server: CatalogServer;
  environment: Environment;
  connection: ConnectionRow | null;
  /** The connection's sealed credential when it was read with the connection. */
  sealed?: SealedSecret | null;
  method: string;
  /** Relative to the provider's base URL, with an optional query string. */
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

export interface ProxyAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  latency_ms: number;
}

/** A request the proxy will not send (nothing left the gateway); `code` is the stable refusal. */
export class ProxyRefused extends Error {
  constructor(
    readonly code:
      | 'proxy_path_invalid'
      | 'proxy_destination_forbidden'
      | 'host_unresolved'
      | 'proxy_body_too_large'
      | 'endpoint_missing'
      | 'proxy_method_invalid',
    message: string,
  ) {
    super(message);
    this.name = 'ProxyRefused';
  }
}

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);
const DROPPED_REQUEST_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'host',
  'content-length',
  'connection',
  'transfer-encoding',
  'te',
  'upgrade',
  'keep-alive',
  'x-api-key',
  'x-signature',
  'x-timestamp',
]);
const PASSED_RESPONSE_HEADERS = new Set([
  'content-type',
  'cache-control',
  'etag',
  'last-modified',
  'retry-after',
  'x-request-id',
  'location',
]);

function targetUrl(baseUrl: string, path: string): URL {
  if (!path.startsWith('/') || path.startsWith('//') || path.includes('\\'))
    throw new ProxyRefused(
      'proxy_path_invalid',
      'The path must be relative to the provider\'s base URL and start with one "/"',
    );
  const base = new URL(baseUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  const target = new URL(`${base.origin}${basePath}${path}`);
  // URL parsing resolves "..": after it, the target must still be the provider's origin and under its base path.
  if (
    target.origin !== base.origin ||
    !(target.pathname === basePath || target.pathname.startsWith(`${basePath}/`))
  ) {
    throw new ProxyRefused('proxy_path_invalid', "The path leaves the provider's base URL");
  }
  return target;
}

/**
 * The checked address a live call is pinned to. A host that does not resolve cannot be reached (as a
 * provider that does not answer, nothing was sent); one that resolves anywhere private is forbidden.
 */
export async function pinnedPublicAddress(url: URL): Promise<{ address: string; family: 4 | 6 }> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: Array<{ address: string; family: number }>;
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch {
    throw new ProxyRefused('host_unresolved', `The provider's host ${host} does not resolve`);
  }
  // Every address must be public: a name that also resolves to a private one is refused outright.
  if (addresses.length === 0 || addresses.some((a) => !isPublicAddress(a.address))) {
    throw new ProxyRefused(
      'proxy_destination_forbidden',
      "The provider's host resolves to a loopback, private or reserved address",
    );
  }
  return { address: addresses[0].address, family: addresses[0].family === 6 ? 6 : 4 };
}

function scrub(text: string, secrets: string[]): string {
  return secrets.reduce((out, secret) => out.split(secret).join('[redacted]'), text);
}

export async function proxyExecute(
  deps: ConnectionCallDeps & { endpoints: ProviderEndpoints; timeoutMs: number },
  request: ProxyRequest,
): Promise<ProxyAnswer> {
  const method = request.method.toUpperCase();
  if (!METHODS.has(method))
    throw new ProxyRefused('proxy_method_invalid', `Method ${request.method} is not proxied`);
  if (request.body.length > PROXY_MAX_REQUEST_BYTES)
    throw new ProxyRefused(
      'proxy_body_too_large',
      `The request body exceeds ${PROXY_MAX_REQUEST_BYTES} bytes`,
    );
  const baseUrl = catalogEndpoint(deps.endpoints, request.server, request.environment);
  if (!baseUrl)
    throw new ProxyRefused('endpoint_missing', `No ${request.environment} endpoint for ${request.server.id}`);
  const target = targetUrl(baseUrl, request.path);
  const pinned = request.environment === 'live' ? await pinnedPublicAddress(target) : undefined;

  const credentialHeaders = new Set(
    request.server.fields.map((f) => f.header_name?.toLowerCase()).filter((h): h is string => !!h),
  );
  const headers = Object.fromEntries(
    Object.entries(request.headers)
      .map(([name, value]) => [name.toLowerCase(), value] as const)
      .filter(
        ([name]) =>
          !DROPPED_REQUEST_HEADERS.has(name) && !credentialHeaders.has(name) && !name.startsWith('proxy-'),
      ),
  );

  const { answer, credential } = await callWithConnection(
    deps,
    {
      server: request.server,
      baseUrl,
      connection: request.connection,
      ...(request.sealed !== undefined ? { sealed: request.sealed } : {}),
      method,
      path: target.pathname.slice(new URL(baseUrl).pathname.replace(/\/+$/, '').length) + target.search,
      headers,
      body: request.body,
    },
    {
      timeoutMs: deps.timeoutMs,
      maxResponseBytes: PROXY_MAX_RESPONSE_BYTES,
      ...(pinned ? { lookupAddress: pinned } : {}),
    },
  );

  const secrets = Object.values(credential).filter((value) => value && value.length >= 4);
  const passed: Record<string, string> = {};
  for (const [name, value] of Object.entries(answer.headers)) {
    if (PASSED_RESPONSE_HEADERS.has(name) && value !== undefined)
      passed[name] = scrub(Array.isArray(value) ? value.join(', ') : value, secrets);
  }
  return {
    status: answer.status,
    headers: passed,
    body: Buffer.from(scrub(answer.body.toString('latin1'), secrets), 'latin1'),
    latency_ms: answer.latencyMs,
  };
}
