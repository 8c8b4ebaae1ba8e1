// A bare pass-through MCP proxy: the same SDK packages the gateway serves MCP with (the low-level Server,
// createMcpHandler, the Node request adapter), one tool that forwards its arguments to a provider's
// `POST /tools/<tool>` with a fixed credential over a keep-alive agent, and nothing else (no session,
// limit, policy, vault, record or event). What a tool call costs when only the protocol is paid for.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, createMcpHandler, type CallToolResult } from '@modelcontextprotocol/server';
import { toWebRequest } from '@modelcontextprotocol/node';

export interface BareProxyOptions {
  /** The tool's name as listed and called. */
  name: string;
  inputSchema: Record<string, unknown>;
  /** The upstream endpoint the tool posts to, and the headers that carry its credential. */
  upstream: string;
  headers: Record<string, string>;
}

export interface BareProxy {
  url: string;
  close(): Promise<void>;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64, timeout: 4_000 });

function post(
  target: URL,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      target,
      { method: 'POST', agent, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export async function startBareMcpProxy(options: BareProxyOptions): Promise<BareProxy> {
  const target = new URL(options.upstream);
  const build = () => {
    const server = new Server({ name: 'bare-proxy', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/list', () => ({
      tools: [{ name: options.name, inputSchema: options.inputSchema as never }],
    }));
    server.setRequestHandler('tools/call', async (request): Promise<CallToolResult> => {
      const answer = await post(target, options.headers, JSON.stringify(request.params.arguments ?? {}));
      const output = JSON.parse(answer.body) as Record<string, unknown>;
      return {
        isError: answer.status >= 400,
        content: [{ type: 'text', text: answer.body }],
        structuredContent: output,
      };
    });
    return server;
  };
  const handler = createMcpHandler(build, { legacy: 'reject', onerror: () => undefined });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const parsedBody: unknown = text ? JSON.parse(text) : undefined;
      void (async () => {
        const response = await handler.fetch(await toWebRequest(req, parsedBody), { parsedBody });
        const headers: Record<string, string> = {};
        response.headers.forEach((value, name) => {
          headers[name] = value;
        });
        res.writeHead(response.status, headers).end(Buffer.from(await response.arrayBuffer()));
      })().catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
  });
  // The gateway's listener settings.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
