// A stock MCP client on the current protocol that notes every request it sends (URL, headers, parsed
// body), so a test can send one of them again raw and compare the answers byte for byte.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

export interface SentRequest {
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

export async function recordingClient(
  url: string,
  key: string,
): Promise<{ client: Client; sent: SentRequest[] }> {
  const sent: SentRequest[] = [];
  const client = new Client(
    { name: 'gateway-test', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
      fetch: async (input, init) => {
        if (typeof init?.body === 'string')
          sent.push({
            url: String(input),
            headers: Object.fromEntries(new Headers(init.headers).entries()),
            body: JSON.parse(init.body) as Record<string, unknown>,
          });
        return fetch(input, init);
      },
    }),
  );
  return { client, sent };
}
