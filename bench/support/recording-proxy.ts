// A loopback HTTP server that first forwards JSON-RPC requests to a target and records each method's answer,
// then, once switched to replay, answers every request from those bytes (with the request's own id) and
// never reaches the target: what a client costs against a server that does no work at all.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

interface Recorded {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const HOP_BY_HOP = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive']);

export interface RecordingProxy {
  url: string;
  /** From now on, answer recorded methods from their recorded bytes. */
  replay(): void;
  close(): Promise<void>;
}

export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const recorded = new Map<string, Recorded>();
  let replaying = false;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const message = (text ? JSON.parse(text) : {}) as { method?: string; id?: number | string };
      const key = `${req.method} ${message.method ?? ''}`;
      const send = (answer: Recorded, body: string) =>
        res
          .writeHead(answer.status, { ...answer.headers, 'content-length': Buffer.byteLength(body) })
          .end(body);
      const known = recorded.get(key);
      if (replaying && known) {
        send(known, known.body.replace(/"id":\s*("[^"]*"|\d+)/, `"id":${JSON.stringify(message.id)}`));
        return;
      }
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(
          (entry): entry is [string, string] => typeof entry[1] === 'string',
        ),
      );
      fetch(target, { method: req.method, headers, body: text || undefined })
        .then(async (answer) => {
          const kept: Record<string, string> = {};
          answer.headers.forEach((value, name) => {
            if (!HOP_BY_HOP.has(name)) kept[name] = value;
          });
          const entry = { status: answer.status, headers: kept, body: await answer.text() };
          recorded.set(key, entry);
          send(entry, entry.body);
        })
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    replay: () => {
      replaying = true;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
