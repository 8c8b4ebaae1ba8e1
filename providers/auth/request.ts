// The upstream request every credential injection works on: method, absolute URL, headers, raw body,
// and the TLS client material mTLS needs. Injections return a new request; they never mutate.
import type { CatalogServer } from '../../domain/providers/catalog';

export interface OutboundRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: Buffer;
  /** Client certificate and key (cert auth); `ca` adds trusted roots (the test CA of a sandbox). */
  tls?: { cert?: string; key?: string; ca?: string };
}

export type Credential = Record<string, string>;

/** One auth type's injection: adds exactly that type's credential to the request. */
export type Injector = (
  request: OutboundRequest,
  credential: Credential,
  server: CatalogServer,
  now?: Date,
) => OutboundRequest;

export function headerFieldOf(server: CatalogServer, name: string): string {
  const header = server.fields.find((f) => f.name === name)?.header_name;
  if (!header) throw new Error(`catalog: ${server.id} names no header for ${name}`);
  return header;
}

export function withHeaders(request: OutboundRequest, headers: Record<string, string>): OutboundRequest {
  return { ...request, headers: { ...request.headers, ...headers } };
}

/** The path and query the provider sees, as signatures cover them. */
export function pathAndQuery(url: URL): string {
  return `${url.pathname}${url.search}`;
}
