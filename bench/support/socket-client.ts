// A lean HTTP/1.1 keep-alive client for the load generators: one TCP socket per lane, requests written as
// prepared bytes, responses read by Content-Length (or chunked framing). node:http's client costs about as
// much CPU per request as the server it measures, and on two cores the generator's CPU is taken from the
// gateway; this one costs a fraction of it, so the figures say more about the gateway.
import net from 'node:net';

export interface PreparedRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string;
}

/** The request's bytes, ready to write. */
export function encodeRequest(request: PreparedRequest): Buffer {
  const body = request.body ? Buffer.from(request.body) : undefined;
  let head = `${request.method} ${request.url.pathname}${request.url.search} HTTP/1.1\r\nHost: ${request.url.host}\r\n`;
  for (const [name, value] of Object.entries(request.headers)) head += `${name}: ${value}\r\n`;
  if (body) {
    if (!Object.keys(request.headers).some((name) => name.toLowerCase() === 'content-type'))
      head += 'Content-Type: application/json\r\n';
    head += `Content-Length: ${body.length}\r\n`;
  }
  head += '\r\n';
  return body ? Buffer.concat([Buffer.from(head), body]) : Buffer.from(head);
}

const HEAD_END = Buffer.from('\r\n\r\n');

/** Where a complete response ends in `data`, and its status; null while more bytes are needed. */
export function parseResponse(data: Buffer): { status: number; end: number } | null {
  const headEnd = data.indexOf(HEAD_END);
  if (headEnd < 0) return null;
  const head = data.toString('latin1', 0, headEnd);
  const status = Number(head.slice(9, 12));
  const bodyStart = headEnd + 4;
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (length) {
    const end = bodyStart + Number(length[1]);
    return data.length >= end ? { status, end } : null;
  }
  if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
    let at = bodyStart;
    for (;;) {
      const lineEnd = data.indexOf('\r\n', at);
      if (lineEnd < 0) return null;
      const size = parseInt(data.toString('latin1', at, lineEnd), 16);
      const next = lineEnd + 2 + size + 2;
      if (data.length < next) return null;
      if (size === 0) return { status, end: next };
      at = next;
    }
  }
  // No body framing: only bodiless statuses are expected here.
  return { status, end: bodyStart };
}

/** One keep-alive connection that sends a request and resolves with the response status. */
export class Lane {
  private socket: net.Socket | null = null;
  private buffered: Buffer = Buffer.alloc(0);
  private waiting: { resolve: (status: number) => void; reject: (error: Error) => void } | null = null;

  constructor(
    private readonly host: string,
    private readonly port: number,
  ) {}

  send(bytes: Buffer): Promise<number> {
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.connection().write(bytes);
    });
  }

  close(): void {
    this.socket?.destroy();
    this.socket = null;
  }

  private connection(): net.Socket {
    if (this.socket && !this.socket.destroyed) return this.socket;
    const socket = net.connect(this.port, this.host);
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    const fail = (error: Error) => {
      this.socket = null;
      this.buffered = Buffer.alloc(0);
      const waiting = this.waiting;
      this.waiting = null;
      waiting?.reject(error);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('connection closed')));
    this.socket = socket;
    return socket;
  }

  private receive(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const response = parseResponse(this.buffered);
    if (!response) return;
    this.buffered = this.buffered.subarray(response.end);
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.resolve(response.status);
  }
}

/** `concurrency` lanes to one host; `send(i, bytes)` uses lane i mod concurrency, which runLoad keeps busy one request at a time. */
export function lanesFor(
  url: URL,
  concurrency: number,
): { send(lane: number, bytes: Buffer): Promise<number>; close(): void } {
  const lanes = Array.from({ length: concurrency }, () => new Lane(url.hostname, Number(url.port || 80)));
  return {
    send: (lane, bytes) => lanes[lane].send(bytes),
    close: () => lanes.forEach((lane) => lane.close()),
  };
}
