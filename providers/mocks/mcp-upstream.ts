// A tenant's upstream MCP server for tests and `npm run dev`: the official server SDK (Streamable HTTP, both
// protocol eras through the SDK's handler) on a loopback port, with a free tool, priced-looking tools that
// succeed, fail (a tool error), answer too late, or drop the connection after the call arrived (an outcome
// nobody can know). Requests without the upstream key are refused 401; `/not-mcp` answers HTML.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  fromJsonSchema,
  McpServer,
  type JsonSchemaType,
} from '@modelcontextprotocol/server';
import type { RunningMock } from './running-mock';

/** The header and value the upstream requires; a server registered with them has its calls accepted. */
export const MCP_UPSTREAM_AUTH = { header: 'x-upstream-key', value: 'upstream-secret-7f3a' };

export interface McpUpstreamMock extends RunningMock {
  /** tools/call requests that reached each tool, whatever their answer. */
  calls: Record<string, number>;
  /** How long `slow` waits before answering. */
  slowMs: number;
}

const ObjectSchema = (properties: Record<string, unknown>, required: string[] = []): JsonSchemaType =>
  ({ type: 'object', properties, required, additionalProperties: false }) as JsonSchemaType;

function buildServer(mock: McpUpstreamMock, dropSocket: () => void): McpServer {
  const server = new McpServer({ name: 'mock-upstream', version: '1.0.0' });
  const count = (name: string) => {
    mock.calls[name] = (mock.calls[name] ?? 0) + 1;
  };
  const text = (value: unknown) => [{ type: 'text' as const, text: JSON.stringify(value) }];
  server.registerTool(
    'echo',
    {
      description: 'Echo the message back (free).',
      inputSchema: fromJsonSchema<Record<string, unknown>>(
        ObjectSchema({ message: { type: 'string' } }, ['message']),
      ),
    },
    (args: Record<string, unknown>) => {
      count('echo');
      return { content: text({ echo: args.message }), structuredContent: { echo: args.message } };
    },
  );
  server.registerTool(
    'quote',
    {
      description: 'Quote a freight price for a route (priced).',
      inputSchema: fromJsonSchema<Record<string, unknown>>(
        ObjectSchema({ from: { type: 'string' }, to: { type: 'string' } }, ['from', 'to']),
      ),
    },
    (args: Record<string, unknown>) => {
      count('quote');
      const out = { route: `${String(args.from)}-${String(args.to)}`, price: '12.34' };
      return { content: text(out), structuredContent: out };
    },
  );
  server.registerTool(
    'fail',
    {
      description: 'Always fails (priced).',
      inputSchema: fromJsonSchema<Record<string, unknown>>(ObjectSchema({})),
    },
    () => {
      count('fail');
      return { isError: true, content: text({ error: 'upstream refused the request' }) };
    },
  );
  server.registerTool(
    'slow',
    {
      description: 'Answers late (priced).',
      inputSchema: fromJsonSchema<Record<string, unknown>>(ObjectSchema({})),
    },
    async () => {
      count('slow');
      await new Promise((resolve) => setTimeout(resolve, mock.slowMs));
      return { content: text({ late: true }) };
    },
  );
  server.registerTool(
    'vanish',
    {
      description: 'Drops the connection once the call arrived (priced).',
      inputSchema: fromJsonSchema<Record<string, unknown>>(ObjectSchema({})),
    },
    () => {
      count('vanish');
      dropSocket();
      return new Promise(() => undefined);
    },
  );
  return server;
}

export async function startMcpUpstreamMock(): Promise<McpUpstreamMock> {
  const mock = { calls: {}, slowMs: 5_000 } as McpUpstreamMock;
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    if (req.url?.startsWith('/not-mcp')) {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Hello</body></html>');
      return;
    }
    if (req.headers[MCP_UPSTREAM_AUTH.header] !== MCP_UPSTREAM_AUTH.value) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    const handler = toNodeHandler(
      createMcpHandler(() => buildServer(mock, () => req.socket.destroy()), {
        onerror: () => undefined,
      }),
    );
    void handler(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  mock.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  mock.stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return mock;
}
