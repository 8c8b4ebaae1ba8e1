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

export interface DatabaseOptions {
  maximumPoolSize?: number;
}

export async function openDatabase(url: string, options: DatabaseOptions = {}): Promise<DatabasePool> {
  // Transactions run their after-commit effects (metrics of what they wrote) once committed.
  return trackCommits(
    await createPool(url, {
      typeParsers,
      interceptors: [resultParser],
      maximumPoolSize: options.maximumPoolSize ?? 10,
      connectionTimeout: 10_000,
      idleTimeout: 30_000,
      statementTimeout: 30_000,
    }),
  );
}
