// Reads the gateway's source for the event types it can write: every `recordEvent(…)`, `eventInsertFrom(…)`,
// `eventsInsertFrom(…)` (its list of types), `endAttempt(…)` given a family's events, and test-fire call in
// the TypeScript (their type argument, or the EventType-typed tables it indexes) and every SQL file that
// inserts into `events` (its `type := '…'` literals). Parsing only, no type checking.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '..', '..');
/** Production code only: tests and benchmarks write events to stand in for areas, never as emitters. */
const SOURCE_DIRS = ['activities', 'api', 'domain', 'providers', 'runtime', 'worker', 'workflows'];
/** Emitting calls and the index of their type argument. */
const EMITTERS: Record<string, number> = {
  recordEvent: 2,
  insertUndispatchableEvent: 3,
  eventInsertFrom: 1,
  eventsInsertFrom: 0,
  endAttempt: 3,
};
/** The two typed funnels: the only TypeScript allowed to write `INSERT INTO events`. */
export const EVENT_FUNNELS = ['domain/events/record.ts', 'domain/events/queries.ts'];

const TYPE_SHAPE = /^[a-z0-9_]+(\.[a-z0-9_]+)+$/;

export interface EmitterScan {
  /** Event type → the places (file:line) that emit it. */
  emitted: Map<string, string[]>;
  /** Calls whose type argument could not be read back to literals. */
  unresolved: string[];
  /** TypeScript files writing the events table outside the typed funnels. */
  bypasses: string[];
}

function walk(dir: string, ext: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) walk(full, ext, out);
    else if (name.endsWith(ext)) out.push(full);
  }
  return out;
}

function literalsIn(node: ts.Node): string[] {
  const found: string[] = [];
  const visit = (n: ts.Node) => {
    if ((ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) && TYPE_SHAPE.test(n.text))
      found.push(n.text);
    ts.forEachChild(n, visit);
  };
  visit(node);
  return found;
}

/** Declarations typed with `EventType` (annotation or `satisfies`): the tables an emitter indexes. */
function eventTypedTables(file: ts.SourceFile): string[] {
  const found: string[] = [];
  const mentionsEventType = (t: ts.Node | undefined) =>
    t !== undefined && /\bEventType\b/.test(t.getText(file));
  const visit = (n: ts.Node) => {
    if (ts.isVariableDeclaration(n) && n.initializer) {
      let init: ts.Expression = n.initializer;
      let typed = mentionsEventType(n.type);
      while (
        ts.isSatisfiesExpression(init) ||
        ts.isAsExpression(init) ||
        ts.isParenthesizedExpression(init)
      ) {
        if (ts.isSatisfiesExpression(init) && mentionsEventType(init.type)) typed = true;
        init = init.expression;
      }
      if (typed) found.push(...literalsIn(init));
    }
    ts.forEachChild(n, visit);
  };
  visit(file);
  return found;
}

function calleeName(call: ts.CallExpression): string | null {
  const callee = call.expression;
  if (ts.isIdentifier(callee)) return callee.text;
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text;
  return null;
}

export function scanEmitters(root = ROOT): EmitterScan {
  const emitted = new Map<string, string[]>();
  const unresolved: string[] = [];
  const bypasses: string[] = [];
  const add = (type: string, where: string) => emitted.set(type, [...(emitted.get(type) ?? []), where]);

  for (const full of SOURCE_DIRS.flatMap((dir) => walk(path.join(root, dir), '.ts'))) {
    const rel = path.relative(root, full).split(path.sep).join('/');
    const text = readFileSync(full, 'utf8');
    if (/INSERT\s+INTO\s+events\b/i.test(text) && !EVENT_FUNNELS.includes(rel)) bypasses.push(rel);
    if (!Object.keys(EMITTERS).some((name) => text.includes(`${name}(`))) continue;
    const file = ts.createSourceFile(full, text, ts.ScriptTarget.ES2022, true);
    const tables = eventTypedTables(file);
    const visit = (n: ts.Node) => {
      if (ts.isCallExpression(n)) {
        const name = calleeName(n);
        const index = name === null ? undefined : EMITTERS[name];
        if (index !== undefined && n.arguments.length > index) {
          const where = `${rel}:${file.getLineAndCharacterOfPosition(n.getStart()).line + 1}`;
          const arg = n.arguments[index];
          const direct = literalsIn(arg);
          // A literal argument names itself; anything else resolves through the file's EventType-typed tables.
          const types =
            direct.length > 0
              ? direct
              : ts.isIdentifier(arg) ||
                  ts.isElementAccessExpression(arg) ||
                  ts.isPropertyAccessExpression(arg)
                ? tables
                : [];
          if (types.length === 0) unresolved.push(`${where}: ${arg.getText(file)}`);
          for (const type of types) add(type, where);
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(file);
  }

  for (const full of walk(path.join(root, 'schema', 'sql'), '.sql')) {
    const text = readFileSync(full, 'utf8');
    if (!/INSERT\s+INTO\s+events\b/i.test(text)) continue;
    const rel = path.relative(root, full).split(path.sep).join('/');
    const types = [...text.matchAll(/\btype\s*:=\s*'([^']+)'/g)].map((m) => m[1]);
    if (types.length === 0) unresolved.push(`${rel}: inserts into events without a \`type := '…'\` literal`);
    for (const type of types) add(type, rel);
  }
  return { emitted, unresolved, bypasses };
}
