// `path_secret`: the secrets are path segments in the catalog's template (`/{account_id}/{token}`),
// put before the request's own path, plus an optional companion header when the account stored one.
import { withHeaders, type Injector } from './request';

export const injectPathSecret: Injector = (request, credential, server) => {
  const template = server.path_template ?? '';
  const prefix = template.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
    if (credential[name] === undefined) throw new Error(`credential lacks the path secret ${name}`);
    return encodeURIComponent(credential[name]);
  });
  const url = new URL(request.url);
  url.pathname = `${prefix}${url.pathname === '/' ? '' : url.pathname}` || '/';
  const companions: Record<string, string> = {};
  for (const f of server.fields) {
    if (f.kind === 'companion_header' && f.header_name && credential[f.name] !== undefined)
      companions[f.header_name] = credential[f.name];
  }
  return withHeaders({ ...request, url }, companions);
};
