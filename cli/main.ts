#!/usr/bin/env node
// `gateway`: the command-line client of the Agent Payments Gateway. Its operation commands are
// generated from the OpenAPI document bundled at build time; the rest (login, profiles, listen,
// trigger, completion, raw requests) are written here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import document from './generated/openapi.json';
import { CliError, EXIT } from './exit';
import type { OpenApiDocument } from './operations/document';
import { registerOperations } from './operations/register';
import { registerRaw } from './commands/raw';
import { registerProfiles } from './commands/profiles';
import { registerCompletion } from './commands/completion';
import { registerLogin } from './commands/login';
import { registerListen } from './commands/listen';
import { registerTrigger } from './commands/trigger';
import { registerCommandList } from './commands/list-commands';

/** The package's version: its package.json is above cli/ in a checkout, above dist/cli/ when built. */
function packageVersion(): string {
  for (const up of [['..'], ['..', '..']]) {
    try {
      return (JSON.parse(readFileSync(join(__dirname, ...up, 'package.json'), 'utf8')) as { version: string })
        .version;
    } catch {
      // not at this level
    }
  }
  return 'unknown';
}

export function buildProgram(): Command {
  const program = new Command('gateway')
    .description(
      'Command-line client of the Agent Payments Gateway: every API operation as `gateway <resource> <operation>`.',
    )
    .version(
      `${packageVersion()} (API ${(document as { info?: { version?: string } }).info?.version ?? 'unknown'})`,
    )
    .addOption(
      new Option('--api-key <key>', 'API key or access token (default: $GATEWAY_API_KEY, then the profile)'),
    )
    .addOption(
      new Option(
        '--base-url <url>',
        'gateway base URL (default: $GATEWAY_BASE_URL, then the profile, then http://127.0.0.1:8080)',
      ),
    )
    .addOption(
      new Option(
        '--profile <name>',
        'profile in the config dir (default: $GATEWAY_PROFILE, then the default profile)',
      ),
    )
    .option('--json', 'print the exact response body (the default when stdout is not a terminal)')
    .option('--verbose', 'show the HTTP exchange on stderr, credentials redacted')
    .showHelpAfterError()
    .exitOverride();
  const table = registerOperations(program, document as unknown as OpenApiDocument);
  registerCommandList(program, table);
  registerRaw(program);
  registerProfiles(program);
  registerLogin(program);
  registerListen(program);
  registerTrigger(program);
  registerCompletion(program);
  for (const command of allCommands(program)) command.exitOverride();
  return program;
}

function allCommands(command: Command): Command[] {
  return [command, ...command.commands.flatMap(allCommands)];
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are asked for; every other parse error is a usage error, printed already.
      return error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.version' ||
        error.code === 'commander.help'
        ? EXIT.ok
        : EXIT.usage;
    }
    if (error instanceof CliError) {
      process.stderr.write(`${error.message}\n`);
      return error.exitCode;
    }
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT.api;
  }
}

/** Runs the client on this process's arguments; the entry of the `gateway` bin (cli/gateway.js). */
export function run(): void {
  main(process.argv).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}

if (require.main === module) run();
