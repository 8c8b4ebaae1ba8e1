// `none`: a public API; no credential is added, and a caller-supplied credential header is dropped so
// nothing of the project's leaks to a server that asked for none.
import type { Injector } from './request';

const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'x-api-key']);

export const injectNone: Injector = (request) => ({
  ...request,
  headers: Object.fromEntries(
    Object.entries(request.headers).filter(([name]) => !CREDENTIAL_HEADERS.has(name.toLowerCase())),
  ),
});
