// `gateway listen --forward-to <url>`: receives the project's webhook deliveries on a loopback server
// in this process, registered as temporary test-mode endpoints (one per event type, deleted on exit),
// checks each Standard Webhooks signature and forwards the delivery unchanged to a local URL.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Command } from 'commander';
import document from '../generated/openapi.json';
import { resolveTarget, type GlobalOptions } from '../auth/credential';
import { usageError } from '../exit';
import type { paths } from '../generated/api';
import { apiClient, reach, type GatewayApi } from '../http/client';

type EventType =
  paths['/v1/webhook-endpoints']['post']['requestBody']['content']['application/json']['event'];
import { apiFailure, outputMode } from '../output/render';

/** The event types an endpoint can subscribe to, as the bundled document's create schema lists them. */
export function subscribableEvents(): string[] {
  const create = (
    document as unknown as {
      paths: Record<
        string,
        {
          post?: {
            requestBody?: {
              content: Record<string, { schema: { properties: { event: { enum?: string[] } } } }>;
            };
          };
        }
      >;
    }
  ).paths['/v1/webhook-endpoints']?.post;
  return create?.requestBody?.content['application/json']?.schema.properties.event.enum ?? [];
}

/** Standard Webhooks: HMAC-SHA256 over `{id}.{timestamp}.{body}` with the base64 key after `whsec_`. */
export function signatureValid(secret: string, headers: IncomingMessage['headers'], body: string): boolean {
  const id = String(headers['webhook-id'] ?? '');
  const timestamp = String(headers['webhook-timestamp'] ?? '');
  const expected = createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))
    .update(`${id}.${timestamp}.${body}`)
    .digest();
  return String(headers['webhook-signature'] ?? '')
    .split(' ')
    .map((part) => Buffer.from(part.replace(/^v1,/, ''), 'base64'))
    .some((candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

interface Registered {
  id: string;
  event: string;
  secret: string;
}

async function removeAll(client: GatewayApi, endpoints: Registered[]): Promise<void> {
  await Promise.allSettled(
    endpoints.map((e) => client.DELETE('/v1/webhook-endpoints/{id}', { params: { path: { id: e.id } } })),
  );
}

export function registerListen(root: Command): void {
  root
    .command('listen')
    .description('receive webhook deliveries here and forward them to a local URL (test mode)')
    .requiredOption('--forward-to <url>', 'where each delivery is sent, e.g. http://localhost:3000/hook')
    .option('--events <types>', 'comma-separated event types (default: every subscribable type)')
    .action(async (options: { forwardTo: string; events?: string }, self: Command) => {
      const globals = self.optsWithGlobals() as GlobalOptions;
      const mode = outputMode(globals.json);
      let forwardTo: URL;
      try {
        forwardTo = new URL(options.forwardTo);
      } catch {
        throw usageError(`--forward-to must be a URL, not "${options.forwardTo}"`);
      }
      const known = subscribableEvents();
      const events = options.events
        ? options.events
            .split(',')
            .map((e) => e.trim())
            .filter(Boolean)
        : known;
      const unknown = events.filter((e) => !known.includes(e));
      if (unknown.length || events.length === 0)
        throw usageError(`unknown event type ${unknown.join(', ') || '(none)'}; known: ${known.join(', ')}`);
      const target = resolveTarget(globals);
      const client = apiClient({
        baseUrl: target.baseUrl,
        credential: await target.credential(),
        verbose: globals.verbose,
      });

      const endpoints: Registered[] = [];
      const server = createServer(async (req, res) => {
        const body = await readBody(req);
        const endpoint = endpoints.find((e) => req.url === `/${e.event}`);
        const verified = endpoint ? signatureValid(endpoint.secret, req.headers, body) : false;
        let type = '';
        try {
          type = String((JSON.parse(body) as { type?: string }).type ?? '');
        } catch {
          /* shown without a type */
        }
        const forwarded: Record<string, string> = {
          'content-type': String(req.headers['content-type'] ?? 'application/json'),
        };
        for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'])
          if (req.headers[name]) forwarded[name] = String(req.headers[name]);
        let status: number | string;
        try {
          const answer = await fetch(forwardTo, {
            method: 'POST',
            headers: forwarded,
            body,
            redirect: 'manual',
          });
          status = answer.status;
          await answer.arrayBuffer();
        } catch (error) {
          status = `unreachable (${(error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message})`;
        }
        const line = {
          at: new Date().toISOString(),
          type,
          webhook_id: forwarded['webhook-id'] ?? null,
          endpoint_id: endpoint?.id ?? null,
          signature: verified ? 'verified' : 'invalid',
          forwarded_to: forwardTo.toString(),
          status,
        };
        mode.out(
          mode.json
            ? JSON.stringify(line)
            : `${line.at}  ${type || '(no type)'}  ${line.webhook_id ?? ''}  signature ${line.signature}  → ${forwardTo} [${status}]`,
        );
        // The gateway sees the local app's answer, so its retries follow what the app did.
        res.writeHead(typeof status === 'number' ? status : 502).end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as AddressInfo).port;

      const stop = async () => {
        await removeAll(client, endpoints);
        server.closeAllConnections();
        server.close();
      };
      let stopping: Promise<void> | undefined;
      const onSignal = () => {
        stopping ??= stop().then(() => process.exit(0));
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);

      const created = await reach(target.baseUrl, () =>
        Promise.all(
          events.map(async (event) => {
            // Each endpoint gets its own path, so the listener knows which secret signs what arrives there.
            const answer = await client.POST('/v1/webhook-endpoints', {
              body: {
                name: `gateway listen (${event})`,
                event: event as EventType,
                webhook_url: `http://127.0.0.1:${port}/${event}`,
              },
            });
            return { event, answer };
          }),
        ),
      );
      for (const { event, answer } of created)
        if (answer.data) endpoints.push({ id: answer.data.id, event, secret: answer.data.signing_secret });
      const refused = created.find((c) => !c.answer.data);
      if (refused) {
        await stop();
        throw apiFailure(
          mode,
          refused.answer.response.status,
          JSON.stringify(refused.answer.error ?? ''),
          refused.answer.response.headers.get('x-request-id'),
        );
      }
      process.stderr.write(
        `Ready: forwarding ${events.length === known.length ? 'every event type' : events.join(', ')} to ${forwardTo} (${endpoints.length} temporary endpoint${endpoints.length === 1 ? '' : 's'}; Ctrl-C removes them)\n`,
      );
      await new Promise<void>((resolve) => server.on('close', () => resolve()));
    });
}
