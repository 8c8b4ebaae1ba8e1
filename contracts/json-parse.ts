// The gateway's JSON reader. V8 from Node 24 on (at least through V8 14.6) decodes an object key that
// holds an escape wrongly once an earlier text had such a key: after `{"\\":0}`, the key of `{"\n":1}`
// reads back as `\` (nodejs/node#63785, V8 issue 521080746). One tenant's body could then change the keys of
// the next tenant's body, a stored document or a workflow's input. Texts with no escaped key (nearly all)
// keep the native parser; the rest are read here, strictly, and never reach the native key cache.
// `installJsonParse` puts this reader behind `JSON.parse` in a process or a workflow sandbox, so the
// libraries (body parsing, pg, Temporal's payload converter, the MCP SDK) read through it too.

type Reviver = (this: unknown, key: string, value: unknown) => unknown;

const installed = Symbol.for('gateway.json-parse.native');
type Installed = typeof JSON.parse & { [installed]?: typeof JSON.parse };
// The engine's own parser, even when this module loads again in a realm where the reader is installed.
const nativeParse: typeof JSON.parse = (JSON.parse as Installed)[installed] ?? JSON.parse;

/** JSON.parse, with texts that hold an escaped object key read by the strict reader below. */
export function parseJson(text: unknown, reviver?: Reviver): unknown {
  const source = typeof text === 'string' ? text : String(text);
  if (!hasEscapedKey(source)) return nativeParse(source, reviver as Parameters<typeof JSON.parse>[1]);
  const value = readJson(source);
  return typeof reviver === 'function' ? internalize({ '': value }, '', reviver) : value;
}

/** Makes `JSON.parse` of this realm the gateway's reader; calling it again changes nothing. */
export function installJsonParse(): void {
  if ((JSON.parse as Installed)[installed]) return;
  const parse: Installed = function parse(text: string, reviver?: Reviver) {
    return parseJson(text, reviver);
  };
  Object.defineProperty(parse, installed, { value: nativeParse });
  Object.defineProperty(JSON, 'parse', {
    value: parse,
    writable: true,
    configurable: true,
    enumerable: false,
  });
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/**
 * Whether a string with a backslash is followed by `:`, i.e. whether the text may hold an escaped key. One
 * pass, never quadratic; a false positive (a backslash in a value of an invalid text) only costs the
 * strict reader's time.
 */
export function hasEscapedKey(text: string): boolean {
  if (text.indexOf('\\') === -1) return false;
  let at = text.indexOf('"');
  while (at !== -1) {
    let escaped = false;
    let end = at + 1;
    for (;;) {
      const quote = text.indexOf('"', end);
      if (quote === -1) return false;
      const slash = text.indexOf('\\', end);
      if (slash !== -1 && slash < quote) {
        escaped = true;
        end = slash + 2;
        continue;
      }
      end = quote;
      break;
    }
    if (escaped) {
      let next = end + 1;
      while (next < text.length && isSpace(text.charCodeAt(next))) next++;
      if (text.charCodeAt(next) === COLON) return true;
    }
    at = text.indexOf('"', end + 1);
  }
  return false;
}

class Reader {
  at = 0;
  constructor(readonly text: string) {}

  fail(): never {
    throw new SyntaxError(`Unexpected character in JSON at position ${this.at}`);
  }

  space(): void {
    const text = this.text;
    while (this.at < text.length && isSpace(text.charCodeAt(this.at))) this.at++;
  }

  peek(): number {
    return this.text.charCodeAt(this.at);
  }

  literal(word: string, value: unknown): unknown {
    if (!this.text.startsWith(word, this.at)) this.fail();
    this.at += word.length;
    return value;
  }

  number(): number {
    NUMBER.lastIndex = this.at;
    const match = NUMBER.exec(this.text);
    if (!match) this.fail();
    this.at += match[0].length;
    return Number(match[0]);
  }

  string(): string {
    const text = this.text;
    this.at++; // the opening quote
    let out = '';
    let from = this.at;
    for (;;) {
      if (this.at >= text.length) this.fail();
      const code = text.charCodeAt(this.at);
      if (code === QUOTE) break;
      if (code < 0x20) this.fail();
      if (code !== BACKSLASH) {
        this.at++;
        continue;
      }
      out += text.slice(from, this.at);
      const escape = text[this.at + 1];
      const simple = ESCAPES[escape];
      if (simple !== undefined) {
        out += simple;
        this.at += 2;
      } else if (escape === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(this.at + 2, this.at + 6))) {
        out += String.fromCharCode(parseInt(text.slice(this.at + 2, this.at + 6), 16));
        this.at += 6;
      } else {
        this.at++;
        this.fail();
      }
      from = this.at;
    }
    out += text.slice(from, this.at);
    this.at++; // the closing quote
    return out;
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

type Container = { value: Record<string, unknown> | unknown[]; key?: string };

/** A data property, as JSON.parse creates it: `__proto__` is an own member, never the prototype. */
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

/** Reads one JSON text without recursion, so nesting depth is bounded by memory as it is natively. */
function readJson(text: string): unknown {
  const reader = new Reader(text);
  const stack: Container[] = [];
  for (;;) {
    // A value starts here.
    reader.space();
    let value: unknown;
    const code = reader.peek();
    if (code === 0x7b /* { */) {
      reader.at++;
      reader.space();
      if (reader.peek() === 0x7d /* } */) {
        reader.at++;
        value = {};
      } else {
        const container: Container = { value: {} };
        if (reader.peek() !== QUOTE) reader.fail();
        container.key = reader.string();
        reader.space();
        if (reader.peek() !== COLON) reader.fail();
        reader.at++;
        stack.push(container);
        continue;
      }
    } else if (code === 0x5b /* [ */) {
      reader.at++;
      reader.space();
      if (reader.peek() === 0x5d /* ] */) {
        reader.at++;
        value = [];
      } else {
        stack.push({ value: [] });
        continue;
      }
    } else if (code === QUOTE) value = reader.string();
    else if (code === 0x74) value = reader.literal('true', true);
    else if (code === 0x66) value = reader.literal('false', false);
    else if (code === 0x6e) value = reader.literal('null', null);
    else value = reader.number();

    // A value ended: place it, then close every container that ends with it.
    for (;;) {
      const top = stack[stack.length - 1];
      if (!top) {
        reader.space();
        if (reader.at !== text.length) reader.fail();
        return value;
      }
      if (Array.isArray(top.value)) top.value.push(value);
      else put(top.value, top.key as string, value);
      reader.space();
      const next = reader.peek();
      if (next === 0x2c /* , */) {
        reader.at++;
        if (!Array.isArray(top.value)) {
          reader.space();
          if (reader.peek() !== QUOTE) reader.fail();
          top.key = reader.string();
          reader.space();
          if (reader.peek() !== COLON) reader.fail();
          reader.at++;
        }
        break;
      }
      if (next !== (Array.isArray(top.value) ? 0x5d : 0x7d)) reader.fail();
      reader.at++;
      stack.pop();
      value = top.value;
    }
  }
}

/** The reviver walk of ECMA-262 InternalizeJSONProperty. */
function internalize(holder: Record<string, unknown>, name: string, reviver: Reviver): unknown {
  const value = holder[name];
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Array.isArray(value)
      ? Array.from(value, (_item, index) => String(index))
      : Object.keys(record);
    for (const key of keys) {
      const revived = internalize(record, key, reviver);
      if (revived === undefined) delete record[key];
      else put(record, key, revived);
    }
  }
  return reviver.call(holder, name, value);
}
