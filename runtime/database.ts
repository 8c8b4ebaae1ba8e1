// The one way the gateway opens PostgreSQL: a slonik pool whose type parsers never turn money or
// timestamps into floats, and whose interceptor checks every typed query's rows against its zod schema.
import {
  createPool,
  type DatabasePool,
  type Interceptor,
  type QueryResultRow,
  SchemaValidationError,
  type TypeParser,
} from 'slonik';

import { createHash } from 'node:crypto';
import pg from 'pg';
import { trackCommits } from './telemetry/after-commit';

export type { DatabasePool, DatabaseTransactionConnection, CommonQueryMethods } from 'slonik';

// bigint columns come back as BigInt; numeric as string; timestamps as ISO 8601 strings.
const typeParsers: TypeParser[] = [
  { name: 'int8', parse: (value) => BigInt(value) },
  { name: 'numeric', parse: (value) => value },
  { name: 'timestamptz', parse: (value) => new Date(value).toISOString() },
  { name: 'timestamp', parse: (value) => new Date(`${value}Z`).toISOString() },
  { name: 'date', parse: (value) => value },
];

const resultParser: Interceptor = {
  transformRow: (context, query, row) => {
    const { resultParser: parser } = context;
    if (!parser) return row;
    const parsed = parser.safeParse(row);
    if (!parsed.success) throw new SchemaValidationError(query, row, parsed.error.issues);
    return parsed.data as QueryResultRow;
  },
};

/** The SQLSTATE of a database error (slonik wraps some in a cause); undefined when no database answered. */
export function sqlState(error: unknown): string | undefined {
  const candidate = error as { code?: unknown; cause?: { code?: unknown } };
  if (typeof candidate?.code === 'string') return candidate.code;
  if (typeof candidate?.cause?.code === 'string') return candidate.cause.code;
  return undefined;
}

/**
 * The mark that opens a statement run so often that planning it each time would cost more than running
 * it (a tool call's count and finish): each connection prepares it once under a name made from its text,
 * and PostgreSQL reuses its plan. Write it first in the statement's text, which must not vary.
 */
const PREPARED_MARK = '/* prepared */';

const preparedName = (text: string): string =>
  `prepared_${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`;

/** A pg client that sends marked statements as named (prepared) ones; everything else goes as it came. */
class PreparingClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    // pg's own query, looked up at each call (so whatever wraps pg's prototype sees these statements too).
    const send = (...args: unknown[]): unknown =>
      (pg.Client.prototype.query as (...a: unknown[]) => unknown).apply(this, args);
    const query = (config: unknown, values?: unknown, callback?: unknown): unknown =>
      typeof config === 'string' && config.startsWith(PREPARED_MARK) && Array.isArray(values)
        ? send({ name: preparedName(config), text: config, values }, callback)
        : send(config, values, callback);
    this.query = query as pg.Client['query'];
  }
}

class PreparingPool extends pg.Pool {
  constructor(config?: pg.PoolConfig) {
    super({ ...config, Client: PreparingClient });
  }
}

export interface DatabaseOptions {
  maximumPoolSize?: number;
}

export async function openDatabase(url: string, options: DatabaseOptions = {}): Promise<DatabasePool> {
  // Transactions run their after-commit effects (metrics of what they wrote) once committed.
  return trackCommits(
    await createPool(url, {
      typeParsers,
      interceptors: [resultParser],
      PgPool: PreparingPool,
      maximumPoolSize: options.maximumPoolSize ?? 10,
      connectionTimeout: 10_000,
      idleTimeout: 30_000,
      statementTimeout: 30_000,
    }),
  );
}
