// Free loopback ports for a Temporal server started by a test or a benchmark: each service's gRPC port
// and its membership port (gRPC + 100, see temporal-server.ts) must both be free. Temporal stores
// membership ports as a PostgreSQL smallint, so they stay below 32768.
import net from 'node:net';
import type { TemporalServerOptions } from './temporal-server';

function listenable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export async function freeTemporalPorts(): Promise<TemporalServerOptions['ports']> {
  const taken = new Set<number>();
  const pick = async (twin: boolean): Promise<number> => {
    for (;;) {
      const port = 20_000 + Math.floor(Math.random() * 12_000);
      if (taken.has(port) || (twin && taken.has(port + 100))) continue;
      if (!(await listenable(port)) || (twin && !(await listenable(port + 100)))) continue;
      taken.add(port);
      if (twin) taken.add(port + 100);
      return port;
    }
  };
  return {
    frontend: await pick(true),
    history: await pick(true),
    matching: await pick(true),
    worker: await pick(true),
    frontendHttp: await pick(false),
  };
}
