// The escape hatch: `gateway get|post|put|patch|delete <path>` sends any request the generated
// commands do not shape, with the same credential, output and exit codes.
import type { Command } from 'commander';
import type { GlobalOptions } from '../auth/credential';
import { usageError } from '../exit';
import { HTTP_METHODS } from '../operations/document';
import { invoke, readData } from '../operations/invoke';

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function registerRaw(root: Command): void {
  for (const method of HTTP_METHODS) {
    const command = root
      .command(method)
      .description(`send a raw ${method.toUpperCase()} to a path of the API, e.g. /v1/wallets`)
      .argument('<path>')
      .option('-q, --query <key=value>', 'a query parameter (repeat for more)', collect);
    if (method !== 'get' && method !== 'delete')
      command.option('--data <json>', 'the request body: JSON, @file.json, or - for stdin');
    command.action(async (path: string, _options: unknown, self: Command) => {
      const options = self.optsWithGlobals() as GlobalOptions & { query?: string[]; data?: string };
      if (!path.startsWith('/'))
        throw usageError(`the path must start with /, e.g. /v1/whoami (got "${path}")`);
      const query: Record<string, string | string[]> = {};
      for (const pair of options.query ?? []) {
        const at = pair.indexOf('=');
        if (at <= 0) throw usageError(`--query takes key=value, not "${pair}"`);
        const [key, value] = [pair.slice(0, at), pair.slice(at + 1)];
        const existing = query[key];
        query[key] = existing === undefined ? value : ([] as string[]).concat(existing, value);
      }
      const [pathname, inline] = path.split('?', 2);
      for (const [key, value] of new URLSearchParams(inline ?? '')) query[key] ??= value;
      await invoke({ method, path: pathname, query, body: readData(options.data)?.text }, options);
    });
  }
}
