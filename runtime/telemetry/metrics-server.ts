// A metrics-only HTTP listener for a process (the worker's, or the API's when GATEWAY_METRICS_PORT sets a
// port apart from the API): GET /metrics and nothing else. It takes no credential, so it binds where only
// the scraper reaches it (GATEWAY_METRICS_HOST, loopback by default).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { registry } from './metrics';

export interface MetricsServer {
  url: string;
  stop(): Promise<void>;
}

export async function startMetricsServer(options: {
  host: string;
  port: number;
  text: () => Promise<string>;
  onError?: (error: Error) => void;
}): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    options.text().then(
      (body) => res.writeHead(200, { 'content-type': registry.contentType }).end(body),
      (error: Error) => {
        options.onError?.(error);
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) =>
    server.once('error', reject).listen(options.port, options.host, () => resolve()),
  );
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}/metrics`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The Temporal SDK's own exporter, scraped and appended to the process's text (empty when it cannot be read). */
export async function temporalSdkMetrics(address: string | undefined): Promise<string> {
  if (!address) return '';
  try {
    const response = await fetch(`http://${address}/metrics`, { signal: AbortSignal.timeout(2_000) });
    return response.ok ? await response.text() : '';
  } catch {
    return '';
  }
}
