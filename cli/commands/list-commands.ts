// `gateway commands`: every generated operation command with the method and path it sends, so a
// reader (and the coverage test) can see that each documented operation has its command.
import type { Command } from 'commander';
import type { NamedOperation } from '../operations/naming';
import { outputMode, printSuccess } from '../output/render';

export function registerCommandList(root: Command, table: NamedOperation[]): void {
  root
    .command('commands')
    .description('list the operation commands with the HTTP method and path each one sends')
    .action((_options: unknown, self: Command) => {
      const rows = table.map((entry) => ({
        command: ['gateway', ...entry.words, ...entry.pathParams.map((p) => `<${p}>`)].join(' '),
        method: entry.method.toUpperCase(),
        path: entry.path,
        operation_id: entry.operation.operationId,
      }));
      printSuccess(
        outputMode(self.optsWithGlobals().json as boolean | undefined),
        JSON.stringify({ commands: rows }),
      );
    });
}
