// `gateway trigger <event>`: fires a signed test delivery (`webhook_endpoint.test`) at every active
// endpoint of the project subscribed to that event type, e.g. the ones `gateway listen` registered.
import type { Command } from 'commander';
import { resolveTarget, type GlobalOptions } from '../auth/credential';
import { CliError, EXIT, usageError } from '../exit';
import { apiClient, reach } from '../http/client';
import { apiFailure, outputMode, printSuccess } from '../output/render';
import { subscribableEvents } from './listen';

export function registerTrigger(root: Command): void {
  root
    .command('trigger')
    .description('send a test delivery to every active endpoint subscribed to an event type')
    .argument('<event>', 'an event type, e.g. payment.succeeded')
    .action(async (event: string, _options: unknown, self: Command) => {
      const globals = self.optsWithGlobals() as GlobalOptions;
      const mode = outputMode(globals.json);
      if (!subscribableEvents().includes(event))
        throw usageError(`unknown event type "${event}"; known: ${subscribableEvents().join(', ')}`);
      const target = resolveTarget(globals);
      const client = apiClient({
        baseUrl: target.baseUrl,
        credential: await target.credential(),
        verbose: globals.verbose,
      });
      const endpointIds: string[] = [];
      let before: string | undefined;
      do {
        const page = await reach(target.baseUrl, () =>
          client.GET('/v1/webhook-endpoints', {
            params: { query: { event, status: 'active', limit: 100, ...(before ? { before } : {}) } },
          }),
        );
        if (!page.data)
          throw apiFailure(
            mode,
            page.response.status,
            JSON.stringify(page.error ?? ''),
            page.response.headers.get('x-request-id'),
          );
        endpointIds.push(...page.data.triggers.map((t) => t.id));
        before = page.data.next_before ?? undefined;
      } while (before);
      if (endpointIds.length === 0)
        throw new CliError(
          EXIT.api,
          `error: no_endpoint: no active endpoint subscribes to ${event}; start one with \`gateway listen --events ${event} --forward-to …\``,
        );
      const fires = [];
      for (const id of endpointIds) {
        const fired = await reach(target.baseUrl, () =>
          client.POST('/v1/webhook-endpoints/{id}/test', { params: { path: { id } } }),
        );
        if (!fired.data)
          throw apiFailure(
            mode,
            fired.response.status,
            JSON.stringify(fired.error ?? ''),
            fired.response.headers.get('x-request-id'),
          );
        fires.push(fired.data);
      }
      printSuccess(mode, JSON.stringify({ event, fired: fires }));
    });
}
