// Provider calls reuse their connections: a second call to the same provider rides the first call's
// socket, a call pinned to a checked address never rides a socket opened without the check, and an
// answer cut off for its size leaves no half-read socket behind for the next call.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendUpstream, UpstreamUnreachable } from '../../providers/upstream/send';

describe('upstream connections', () => {
  let server: http.Server;
  let base: string;
  const sockets: string[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const size = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('size') ?? '2');
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('x'.repeat(size));
    });
    server.on('connection', (socket) => sockets.push(`${socket.remotePort}`));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://localhost:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => sockets.splice(0));

  const send = (path: string, pinned: boolean, maxResponseBytes = 1024) =>
    sendUpstream(
      { method: 'GET', url: new URL(`${base}${path}`), headers: {}, body: Buffer.alloc(0) },
      {
        timeoutMs: 5_000,
        maxResponseBytes,
        ...(pinned ? { lookupAddress: { address: '127.0.0.1', family: 4 as const } } : {}),
      },
    );

  it('sends consecutive calls over one kept-alive connection', async () => {
    for (let i = 0; i < 5; i++) expect((await send('/a', false)).status).toBe(200);
    expect(sockets).toHaveLength(1);
  });

  it('keeps pinned calls on connections of their own', async () => {
    await send('/a', false);
    const before = sockets.length;
    await send('/a', true);
    await send('/a', true);
    expect(sockets.length - before).toBe(1);
  });

  it('drops a connection whose answer was cut off for its size, and the next call still succeeds', async () => {
    await expect(send('/big?size=4096', false, 100)).rejects.toEqual(
      expect.objectContaining({ reason: 'too_large' } satisfies Partial<UpstreamUnreachable>),
    );
    const answer = await send('/small?size=3', false);
    expect(answer.body.toString()).toBe('xxx');
  });
});
