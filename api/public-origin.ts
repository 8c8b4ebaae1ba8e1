// The gateway's public base URL, for documents that must carry absolute URLs (OAuth metadata, the
// issuer, the resource_metadata hint): GATEWAY_PUBLIC_URL when set, as production must set it, else
// the origin this request reached (the app does not trust X-Forwarded-* headers).
import type Koa from 'koa';
import type { Config } from '../runtime/config';

// A Host header is client-controlled: only plain host names and IP literals are echoed into documents.
const PLAIN_HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

export function publicOrigin(
  config: Pick<Config, 'publicBaseUrl'>,
  ctx: Pick<Koa.Context, 'protocol' | 'host'>,
): string {
  if (config.publicBaseUrl) return config.publicBaseUrl.replace(/\/+$/, '');
  if (!PLAIN_HOST.test(ctx.host)) return 'http://localhost';
  return new URL(`${ctx.protocol}://${ctx.host}`).origin;
}
