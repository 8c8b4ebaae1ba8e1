// Prints answers: the exact response body with `--json` (or when stdout is not a terminal), else a
// table for lists and key/value lines for one object. Errors always name their code and request id.
import { CliError, EXIT } from '../exit';

export interface OutputMode {
  json: boolean;
  out: (text: string) => void;
  err: (text: string) => void;
}

export function outputMode(json: boolean | undefined): OutputMode {
  return {
    json: Boolean(json) || !process.stdout.isTTY,
    out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
    err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
  };
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export function table(rows: Array<Record<string, unknown>>): string {
  if (rows.length === 0) return '(none)';
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))].filter((c) =>
    rows.some((r) => typeof r[c] !== 'object' || r[c] === null),
  );
  const widths = columns.map((c) => Math.min(40, Math.max(c.length, ...rows.map((r) => cell(r[c]).length))));
  const line = (values: string[]) =>
    values
      .map((v, i) => (v.length > widths[i] ? `${v.slice(0, widths[i] - 1)}…` : v.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [
    line(columns.map((c) => c.toUpperCase())),
    ...rows.map((r) => line(columns.map((c) => cell(r[c])))),
  ].join('\n');
}

function human(body: unknown): string {
  if (Array.isArray(body)) return table(body as Array<Record<string, unknown>>);
  if (body && typeof body === 'object') {
    const entries = Object.entries(body as Record<string, unknown>);
    const lists = entries.filter(
      ([, v]) => Array.isArray(v) && (v as unknown[]).every((x) => x && typeof x === 'object'),
    );
    if (lists.length === 1) {
      const rest = entries.filter(([k]) => k !== lists[0][0]);
      return [
        table(lists[0][1] as Array<Record<string, unknown>>),
        ...rest.map(([k, v]) => `${k}: ${cell(v)}`),
      ].join('\n');
    }
    const width = Math.max(...entries.map(([k]) => k.length));
    return entries.map(([k, v]) => `${k.padEnd(width)}  ${cell(v)}`).join('\n');
  }
  return cell(body);
}

/** Prints a successful body: the raw text for `--json`, a table or key/value lines for a person. */
export function printSuccess(mode: OutputMode, text: string): void {
  if (!text) return;
  if (mode.json) return mode.out(text);
  try {
    mode.out(human(JSON.parse(text)));
  } catch {
    mode.out(text);
  }
}

interface Envelope {
  error?: { code?: string; message?: string; details?: unknown } | string;
  message?: string;
  error_description?: string;
  request_id?: string;
}

/** Prints an API error (the body on stdout with `--json`) and returns the exit error to throw. */
export function apiFailure(
  mode: OutputMode,
  status: number,
  text: string,
  headerRequestId: string | null,
): CliError {
  let body: Envelope = {};
  try {
    body = JSON.parse(text) as Envelope;
  } catch {
    /* not JSON: only the status is known */
  }
  const code = typeof body.error === 'string' ? body.error : (body.error?.code ?? `http_${status}`);
  const message =
    typeof body.error === 'object' ? body.error?.message : (body.message ?? body.error_description);
  const requestId = body.request_id ?? headerRequestId ?? 'none';
  if (mode.json && text) mode.out(text);
  return new CliError(
    EXIT.api,
    `error: ${code} (HTTP ${status})${message ? `: ${message}` : ''}\nrequest id: ${requestId}`,
  );
}
