// Credential-free surfaces: the OpenAPI document (at / and /v1), the /docs reference and a liveness probe.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { notFound } from '../../domain/errors';
import { buildOpenApi } from '../openapi';
import { DOCS_INIT_SCRIPT, docsPage } from '../pages/docs';
import { route, type AnyRoute } from '../route';

const ASSETS = new Map([
  ['swagger-ui.css', 'text/css; charset=utf-8'],
  ['swagger-ui-bundle.js', 'application/javascript; charset=utf-8'],
]);

export function publicRoutes(allRoutes: () => AnyRoute[]): AnyRoute[] {
  let document: unknown;
  const openapi = (path: string): AnyRoute =>
    route({
      method: 'get',
      path,
      auth: 'public',
      scope: null,
      tags: ['Meta'],
      operationId: path.startsWith('/v1') ? 'getOpenApiV1' : 'getOpenApi',
      summary: 'This OpenAPI 3.1 description',
      responses: { 200: { description: 'OpenAPI 3.1 document' } },
      handler({ deps }) {
        document ??= buildOpenApi(allRoutes(), deps.config.publicBaseUrl);
        return { body: document, headers: { 'Cache-Control': 'public, max-age=300' } };
      },
    });
  return [
    openapi('/openapi.json'),
    openapi('/v1/openapi.json'),
    route({
      method: 'get',
      path: '/docs',
      auth: 'public',
      scope: null,
      tags: ['Meta'],
      undocumented: true,
      operationId: 'docs',
      summary: 'Interactive API reference',
      responses: { 200: { description: 'HTML' } },
      handler: () => ({ body: docsPage('/openapi.json'), type: 'text/html; charset=utf-8' }),
    }),
    route({
      method: 'get',
      path: '/docs/init.js',
      auth: 'public',
      scope: null,
      tags: ['Meta'],
      undocumented: true,
      operationId: 'docsInit',
      summary: 'Reference bootstrap',
      responses: { 200: { description: 'JavaScript' } },
      handler: () => ({ body: DOCS_INIT_SCRIPT, type: 'application/javascript; charset=utf-8' }),
    }),
    route({
      method: 'get',
      path: '/docs/assets/:file',
      auth: 'public',
      scope: null,
      tags: ['Meta'],
      undocumented: true,
      operationId: 'docsAsset',
      summary: 'Reference assets',
      responses: { 200: { description: 'Asset' } },
      async handler({ params }) {
        const type = ASSETS.get(params.file);
        if (!type) throw notFound('Asset');
        const dir = (require('swagger-ui-dist') as { getAbsoluteFSPath(): string }).getAbsoluteFSPath();
        const body = await readFile(path.join(dir, params.file));
        return { body, type, headers: { 'Cache-Control': 'public, max-age=86400' } };
      },
    }),
    route({
      method: 'get',
      path: '/health',
      auth: 'public',
      scope: null,
      tags: ['Meta'],
      undocumented: true,
      operationId: 'health',
      summary: 'Liveness: the API process answers',
      responses: { 200: { description: 'Alive' } },
      handler: () => ({ body: { status: 'ok' } }),
    }),
  ];
}
