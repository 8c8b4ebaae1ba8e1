// HTTP helpers shared by the test harness and the benchmarks: JSON requests with a bearer key,
// operator calls with the service credential, and tenant/key creation through the operator API.
export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  key?: string;
  body?: unknown;
  raw?: string | Buffer;
  headers?: Record<string, string>;
}

export interface Tenant {
  orgId: string;
  projectId: string;
  key: string;
  keyId: string;
}

export interface GatewayClient {
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<HttpResult<T>>;
  operator<T = any>(
    method: string,
    path: string,
    options?: RequestOptions & { project?: string; user?: string },
  ): Promise<HttpResult<T>>;
  createTenant(options?: { name?: string; environment?: 'live' | 'test' }): Promise<Tenant>;
  createKey(
    projectId: string,
    options?: { scopes?: string[]; name?: string },
  ): Promise<{ key: string; id: string }>;
}

export function gatewayClient(url: string, serviceToken: string): GatewayClient {
  const request = async <T = any>(
    method: string,
    path: string,
    opts: RequestOptions = {},
  ): Promise<HttpResult<T>> => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key) headers.Authorization = `Bearer ${opts.key}`;
    let body: string | Buffer | undefined = opts.raw;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const response = await fetch(`${url}${path}`, { method, headers, body, redirect: 'manual' });
    const text = await response.text();
    let parsed: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  };

  const operator = <T = any>(
    method: string,
    path: string,
    opts: RequestOptions & { project?: string; user?: string } = {},
  ) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.project) headers['x-service-project'] = opts.project;
    if (opts.user) headers['x-service-user'] = opts.user;
    return request<T>(method, path, { ...opts, key: serviceToken, headers });
  };

  const createKey = async (projectId: string, keyOptions: { scopes?: string[]; name?: string } = {}) => {
    const created = await operator('POST', '/v1/api-keys', {
      project: projectId,
      body: {
        name: keyOptions.name ?? 'test key',
        ...(keyOptions.scopes ? { scopes: keyOptions.scopes } : {}),
      },
    });
    if (created.status !== 201) throw new Error(`key creation failed: ${created.status} ${created.text}`);
    return { key: created.body.key as string, id: created.body.id as string };
  };

  const createTenant = async (tenantOptions: { name?: string; environment?: 'live' | 'test' } = {}) => {
    const created = await operator('POST', '/v1/orgs', {
      body: { name: tenantOptions.name ?? 'Acme', environment: tenantOptions.environment ?? 'test' },
    });
    if (created.status !== 201) throw new Error(`org creation failed: ${created.status} ${created.text}`);
    const { key, id } = await createKey(created.body.project.id);
    return { orgId: created.body.organization.id, projectId: created.body.project.id, key, keyId: id };
  };

  return { request, operator, createKey, createTenant };
}
