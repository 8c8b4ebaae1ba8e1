// One-line JSON logs on stderr, filtered by LOG_LEVEL; enough for a log shipper to index by request id.
// Each line carries the fields of the work it belongs to (request id, org, project, attempt id), bound
// once where that work starts (withLogFields) and kept across awaits, and is scrubbed of secrets: fields
// named like one are redacted whatever they hold, and key and signing-secret shapes in any text are masked.
import { AsyncLocalStorage } from 'node:async_hooks';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** Whether lines at `level` are written: a caller may skip gathering a line's fields when not. */
  enabled?(level: Exclude<LogLevel, 'silent'>): boolean;
}

const bound = new AsyncLocalStorage<Record<string, unknown>>();

/** Runs `fn` with `fields` on every log line written inside it (on top of the fields already bound). */
export function withLogFields<T>(fields: Record<string, unknown>, fn: () => T): T {
  return bound.run({ ...bound.getStore(), ...fields }, fn);
}

/** Adds fields to the work already running under withLogFields (an org learnt once the caller is authenticated). */
export function addLogFields(fields: Record<string, unknown>): void {
  const store = bound.getStore();
  if (store) Object.assign(store, fields);
}

const REDACTED = '[redacted]';
const SECRET_NAME =
  /secret|token|password|passphrase|authorization|cookie|credential|api_?key|pepper|private_?key|signature/i;
// API keys, webhook signing secrets and bearer credentials, wherever they turn up in text (an error message, a URL).
const SECRET_TEXT = /csk_(?:live|test)_[A-Za-z0-9_-]+|whsec_[A-Za-z0-9+/=_-]+|\bBearer\s+[^\s"',]+/g;

function scrub(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return value.replace(SECRET_TEXT, REDACTED);
  if (typeof value === 'bigint') return value.toString();
  if (!value || typeof value !== 'object' || depth > 6) return value;
  if (Array.isArray(value)) return value.map((item) => scrub(item, depth + 1));
  if (value instanceof Error) return scrub(value.stack ?? value.message, depth + 1);
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value))
    out[key] =
      SECRET_NAME.test(key) && field !== null && field !== undefined ? REDACTED : scrub(field, depth + 1);
  return out;
}

export function createLogger(level: LogLevel, base: Record<string, unknown> = {}): Logger {
  const emit = (at: Exclude<LogLevel, 'silent'>) => (message: string, fields?: Record<string, unknown>) => {
    if (ORDER[at] < ORDER[level]) return;
    const line = scrub({ ...base, ...bound.getStore(), ...fields }) as Record<string, unknown>;
    process.stderr.write(
      `${JSON.stringify({ at: new Date().toISOString(), level: at, message: scrub(message), ...line })}\n`,
    );
  };
  return {
    debug: emit('debug'),
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    enabled: (at) => ORDER[at] >= ORDER[level],
  };
}
