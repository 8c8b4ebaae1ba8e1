// `npm run admin -- <command>`: the operator operations from a shell, on DATABASE_URL (or the embedded
// PostgreSQL of `npm run dev`, started for the command when it is not running).
import path from 'node:path';
import { sql } from 'slonik';
import { z } from 'zod';
import { rotateSigningKey } from '../domain/receipts/signing-keys';
import { createApiKey, listApiKeys, revokeApiKey } from '../domain/tenancy/api-keys';
import { createOrganization } from '../domain/tenancy/organizations';
import { findProjectById } from '../domain/tenancy/projects';
import { startEmbeddedPostgres, type RunningPostgres } from './postgres';
import { loadConfig } from '../runtime/config';
import { openDatabase, type DatabasePool } from '../runtime/database';
import { migrate } from '../runtime/migrate';

const USAGE = `usage: npm run admin -- <command> [options]

  create-org --name NAME [--environment test|live]   organization + default project (+ prints nothing secret)
  create-key --project PRJ_ID --name NAME [--scopes a,b]   mints a key; the value is printed once
  list-keys --project PRJ_ID                          keys of a project (never their values)
  revoke-key --id KEY_ID                              revokes a key at once
  list-orgs                                           organizations and their projects
  rotate-receipt-key                                  a new receipt signing key signs from now on; older ones stay published`;

function option(args: string[], name: string): string | undefined {
  const index = args.indexOf(`--${name}`);
  return index >= 0 ? args[index + 1] : undefined;
}

function required(args: string[], name: string): string {
  const value = option(args, name);
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

class UsageError extends Error {}

async function withDatabase<T>(run: (db: DatabasePool) => Promise<T>): Promise<T> {
  const config = loadConfig();
  let postgres: RunningPostgres | undefined;
  let url = config.databaseUrl;
  if (!url) {
    const port = Number(process.env.GATEWAY_POSTGRES_PORT ?? 54329);
    url = `postgres://postgres@127.0.0.1:${port}/gateway`;
    const probe = await openDatabase(url, { maximumPoolSize: 1 }).then(
      async (pool) => pool.query(sql.unsafe`SELECT 1`).then(() => pool),
      () => undefined,
    );
    if (probe) {
      await probe.end();
    } else {
      postgres = await startEmbeddedPostgres({
        dataDir: path.join(config.dataDir, 'postgres'),
        port,
        database: 'gateway',
      });
    }
  }
  const db = await openDatabase(url, { maximumPoolSize: 2 });
  try {
    await migrate(db);
    return await run(db);
  } finally {
    await db.end();
    await postgres?.stop();
  }
}

export async function runAdmin(args: string[], print: (line: string) => void): Promise<void> {
  const [command, ...rest] = args;
  const config = loadConfig();
  switch (command) {
    case 'create-org': {
      const environment = (option(rest, 'environment') ?? 'test') as 'test' | 'live';
      if (environment !== 'test' && environment !== 'live')
        throw new UsageError('--environment must be test or live');
      const { organization, project } = await withDatabase((db) =>
        createOrganization(db, { name: required(rest, 'name'), environment }),
      );
      print(
        JSON.stringify({
          organization: { id: organization.id, name: organization.name },
          project: { id: project.id, environment: project.environment },
        }),
      );
      return;
    }
    case 'create-key': {
      const projectId = required(rest, 'project');
      const scopes = option(rest, 'scopes')
        ?.split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const created = await withDatabase(async (db) => {
        const project = await findProjectById(db, projectId);
        if (!project) throw new UsageError(`no project ${projectId}`);
        return createApiKey(db, project, { name: required(rest, 'name'), scopes }, config.apiKeyPepper);
      });
      print(
        JSON.stringify({
          id: created.row.id,
          key: created.key,
          environment: created.row.environment,
          scopes: created.row.scopes,
          project_id: created.row.project_id,
        }),
      );
      return;
    }
    case 'list-keys': {
      const projectId = required(rest, 'project');
      const keys = await withDatabase(async (db) => {
        const project = await findProjectById(db, projectId);
        if (!project) throw new UsageError(`no project ${projectId}`);
        return listApiKeys(db, project.org_id, project.id);
      });
      for (const key of keys)
        print(
          `${key.id}  ${key.key_hint}  ${key.scopes.join(',')}  ${key.revoked_at ? `revoked ${key.revoked_at}` : 'active'}  ${key.name}`,
        );
      return;
    }
    case 'revoke-key': {
      const { row } = await withDatabase((db) => revokeApiKey(db, required(rest, 'id'), null));
      print(JSON.stringify({ id: row.id, revoked_at: row.revoked_at }));
      return;
    }
    case 'list-orgs': {
      const rows = await withDatabase((db) =>
        db.any(sql.type(
          z.object({
            org_id: z.string(),
            org_name: z.string(),
            project_id: z.string(),
            slug: z.string(),
            environment: z.string(),
            is_default: z.boolean(),
          }),
        )`
          SELECT o.id AS org_id, o.name AS org_name, p.id AS project_id, p.slug, p.environment, p.is_default
          FROM organizations o JOIN projects p ON p.org_id = o.id ORDER BY o.created_at, p.created_at`),
      );
      for (const row of rows)
        print(
          `${row.org_id}  ${row.org_name}  ${row.project_id}  ${row.slug}  ${row.environment}${row.is_default ? '  default' : ''}`,
        );
      return;
    }
    case 'rotate-receipt-key': {
      const key = await withDatabase((db) =>
        db.transaction((tx) => rotateSigningKey(tx, loadConfig().encryptionKeys)),
      );
      print(JSON.stringify(key));
      return;
    }
    default:
      throw new UsageError(command && command !== 'help' ? `unknown command ${command}` : '');
  }
}

if (require.main === module) {
  runAdmin(process.argv.slice(2), (line) => process.stdout.write(`${line}\n`)).catch((error: Error) => {
    if (error instanceof UsageError) {
      if (error.message) process.stderr.write(`${error.message}\n\n`);
      process.stderr.write(`${USAGE}\n`);
      process.exit(2);
    }
    process.stderr.write(`${error.stack ?? error.message}\n`);
    process.exit(1);
  });
}
