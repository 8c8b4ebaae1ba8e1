// The one way the gateway opens PostgreSQL: a slonik pool whose type parsers never turn money or
// timestamps into floats, whose interceptor checks every typed query's rows against its zod schema, and
// whose connections prepare the statements this process sends again and again.
import { createHash } from 'node:crypto';
import pg from 'pg';
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

// Statements this process sends again and again are prepared, as pgJDBC and asyncpg do: PostgreSQL parses
// and plans a statement each time it arrives unnamed, which for the hot paths' statements cost more than
// running them. A text seen PREPARE_AFTER times goes as a named statement, parsed once per connection
// (pg keeps which), and PostgreSQL may keep a generic plan for it after planning it five times.
const PREPARE_AFTER = 3;
/** Texts counted at most: a process whose statements vary this much starts counting afresh. */
const TEXTS_COUNTED = 2_000;
/** Named statements one connection holds at most (each keeps its plan in the backend's memory). */
const PREPARED_PER_CONNECTION = 200;

const sightings = new Map<string, number | string>();

/** The name to prepare `text` under once it is hot; undefined until then. */
function preparedName(text: string): string | undefined {
  const seen = sightings.get(text);
  if (typeof seen === 'string') return seen;
  if (seen === undefined && sightings.size >= TEXTS_COUNTED) sightings.clear();
  const count = (seen ?? 0) + 1;
  const name =
    count < PREPARE_AFTER ? count : `s_${createHash('sha256').update(text).digest('base64url').slice(0, 32)}`;
  sightings.set(text, name);
  return typeof name === 'string' ? name : undefined;
}

/**
 * A pg client that sends a hot statement with parameters as a named one (statements without parameters,
 * such as a migration's several commands, go as they came), up to PREPARED_PER_CONNECTION of them.
 */
class PreparingClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    const named = new Set<string>();
    // pg's own query, looked up at each call (so whatever wraps pg's prototype sees these statements too).
    const send = (...args: unknown[]): unknown =>
      (pg.Client.prototype.query as (...a: unknown[]) => unknown).apply(this, args);
    const query = (config: unknown, values?: unknown, callback?: unknown): unknown => {
      const name =
        typeof config === 'string' && Array.isArray(values) && values.length > 0
          ? preparedName(config)
          : undefined;
      if (name === undefined || (!named.has(name) && named.size >= PREPARED_PER_CONNECTION))
        return send(config, values, callback);
      named.add(name);
      return send({ name, text: config, values }, callback);
    };
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
  /** Off for a pooler that cannot keep a connection's named statements (PgBouncer in transaction mode before 1.21). */
  preparedStatements?: boolean;
}

export async function openDatabase(url: string, options: DatabaseOptions = {}): Promise<DatabasePool> {
  // Transactions run their after-commit effects (metrics of what they wrote) once committed.
  return trackCommits(
    await createPool(url, {
      typeParsers,
      interceptors: [resultParser],
      ...(options.preparedStatements === false ? {} : { PgPool: PreparingPool }),
      maximumPoolSize: options.maximumPoolSize ?? 10,
      connectionTimeout: 10_000,
      idleTimeout: 30_000,
      statementTimeout: 30_000,
    }),
  );
}
