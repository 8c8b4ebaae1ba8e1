// Adds one commander command per documented operation, named by `commandTable`, with its path
// parameters as positional arguments, typed flags from its JSON Schemas and `--data` for whole bodies.
// Required fields are checked here, so a command that lacks one exits 2 without sending anything.
import { Command, InvalidArgumentError, Option } from 'commander';
import type { GlobalOptions } from '../auth/credential';
import { usageError } from '../exit';
import type { OpenApiDocument } from './document';
import {
  FlagValueError,
  jsonBody,
  operationFlags,
  parseFlagValue,
  requiredBodyKeys,
  type FlagSpec,
} from './flags';
import { invoke, readData } from './invoke';
import { commandTable, type NamedOperation } from './naming';

function camel(flag: string): string {
  return flag.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

function parser(spec: FlagSpec) {
  return (raw: string, previous: unknown) => {
    let value;
    try {
      value = parseFlagValue(spec, raw);
    } catch (error) {
      if (error instanceof FlagValueError) throw new InvalidArgumentError(error.message);
      throw error;
    }
    return spec.array ? [...((previous as unknown[] | undefined) ?? []), value] : value;
  };
}

function addFlag(command: Command, spec: FlagSpec): void {
  const describe = (text: string) =>
    `${text}${spec.required ? ' (required)' : ''}${spec.array ? ' (repeat for more)' : ''}`;
  if (spec.kind === 'boolean' && !spec.array) {
    command.addOption(new Option(`--${spec.flag}`, describe(spec.description || `${spec.key}: true`)));
    command.addOption(new Option(`--no-${spec.flag}`, `${spec.key}: false`));
    return;
  }
  const option = new Option(
    `--${spec.flag} <${spec.kind}>`,
    describe(spec.description || spec.key),
  ).argParser(parser(spec));
  if (spec.choices) option.choices(spec.choices);
  command.addOption(option);
}

function groupFor(root: Command, words: string[]): Command {
  let parent = root;
  for (const word of words) {
    const existing = parent.commands.find((c) => c.name() === word);
    parent = existing ?? parent.command(word).description(`${word} commands`);
  }
  return parent;
}

function addOperation(root: Command, entry: NamedOperation): void {
  const parent = groupFor(root, entry.words.slice(0, -1));
  const leaf = parent.command(entry.words[entry.words.length - 1]);
  leaf.description(
    `${entry.operation.summary ?? entry.operation.operationId}  [${entry.method.toUpperCase()} ${entry.path}]`,
  );
  for (const name of entry.pathParams) leaf.argument(`<${name}>`);
  const flags = operationFlags(entry.operation);
  for (const spec of flags) addFlag(leaf, spec);
  const hasBody = Boolean(entry.operation.requestBody);
  if (hasBody)
    leaf.option(
      '--data <json>',
      'the whole request body: JSON, @file.json, or - for stdin; flags override its keys',
    );
  const required = requiredBodyKeys(entry.operation);
  const requiredQuery = flags.filter((f) => f.location === 'query' && f.required);
  leaf.action(async (...args: unknown[]) => {
    const command = args[args.length - 1] as Command;
    const values = args.slice(0, entry.pathParams.length) as string[];
    const options = command.optsWithGlobals() as GlobalOptions & Record<string, unknown>;
    const query: Record<string, unknown> = {};
    const bodyFlags: Record<string, unknown> = {};
    for (const spec of flags) {
      const value = options[camel(spec.flag)];
      if (value === undefined) continue;
      (spec.location === 'query' ? query : bodyFlags)[spec.key] = value;
    }
    const missingQuery = requiredQuery.filter((f) => query[f.key] === undefined).map((f) => `--${f.flag}`);
    if (missingQuery.length) throw usageError(`missing required ${missingQuery.join(', ')}`);
    let body: unknown;
    let serialized: string | undefined;
    if (hasBody) {
      const read = readData(options.data as string | undefined);
      const data = read?.value;
      const isObject = typeof data === 'object' && data !== null && !Array.isArray(data);
      if (read && !isObject && Object.keys(bodyFlags).length > 0)
        throw usageError('--data must be a JSON object when flags add fields to it');
      body = read && !isObject ? data : { ...((data as object | undefined) ?? {}), ...bodyFlags };
      serialized = read && Object.keys(bodyFlags).length === 0 ? read.text : jsonBody(body);
      if (body && typeof body === 'object' && !Array.isArray(body)) {
        const missing = required.filter((key) => (body as Record<string, unknown>)[key] === undefined);
        if (missing.length) {
          const named = missing.map((key) => {
            const spec = flags.find((f) => f.key === key && f.location === 'body');
            return spec ? `--${spec.flag}` : `${key} (in --data)`;
          });
          throw usageError(`missing required ${named.join(', ')}`);
        }
      }
    }
    const pathValues = Object.fromEntries(entry.pathParams.map((name, i) => [name, values[i]]));
    await invoke({ method: entry.method, path: entry.path, pathValues, query, body: serialized }, options);
  });
}

export function registerOperations(root: Command, document: OpenApiDocument): NamedOperation[] {
  const table = commandTable(document);
  for (const entry of table) addOperation(root, entry);
  return table;
}
