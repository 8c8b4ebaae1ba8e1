// The shared API port: a TCP proxy handing each new connection to the next API process in turn
// (keep-alive connections stay with their process), skipping one that refuses the connection.
// Each API process keeps its own loopback port too, so tests can address a given process.
import net from 'node:net';

export interface RunningProxy {
  url: string;
  stop(): Promise<void>;
}

export async function startProxy(
  host: string,
  port: number,
  backends: Array<{ host: string; port: number }>,
): Promise<RunningProxy> {
  let next = 0;
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };

  const connect = (client: net.Socket, tries: number) => {
    if (tries === 0) return client.destroy();
    const backend = backends[next++ % backends.length];
    const upstream = net.connect(backend.port, backend.host);
    track(upstream);
    upstream.once('error', () => {
      // Refused before anything was sent: try the next process; after that the client sees the drop.
      if (upstream.bytesWritten === 0 && !client.destroyed) connect(client, tries - 1);
      else client.destroy();
    });
    upstream.once('connect', () => {
      upstream.setNoDelay(true);
      client.once('close', () => upstream.destroy());
      upstream.once('close', () => client.destroy());
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
  };

  const server = net.createServer({ pauseOnConnect: true, noDelay: true }, (client) => {
    track(client);
    client.once('error', () => client.destroy());
    connect(client, backends.length);
  });
  await new Promise<void>((resolve, reject) =>
    server.once('error', reject).listen(port, host, () => resolve()),
  );
  const address = server.address() as net.AddressInfo;
  return {
    url: `http://${host}:${address.port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
