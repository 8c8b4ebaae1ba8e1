// GET /metrics on the API port: the process's Prometheus text, for the service credential only (a separate
// listener without a credential is GATEWAY_METRICS_PORT). An operator surface: left out of the OpenAPI document.
import { readBacklogs } from '../../domain/operations/backlogs';
import { registry, scrape } from '../../runtime/telemetry/metrics';
import { route, type AnyRoute } from '../route';

export const metricsRoutes: AnyRoute[] = [
  route({
    method: 'get',
    path: '/metrics',
    auth: 'operator',
    scope: null,
    tags: ['Operator'],
    undocumented: true,
    operationId: 'scrapeMetrics',
    summary: 'Prometheus metrics of this API process',
    responses: { 200: { description: 'Prometheus text exposition', contentType: 'text/plain' } },
    async handler({ deps }) {
      return {
        body: await scrape({ db: deps.db, backlogs: readBacklogs }),
        type: registry.contentType,
        headers: { 'Cache-Control': 'no-store' },
      };
    },
  }),
];
