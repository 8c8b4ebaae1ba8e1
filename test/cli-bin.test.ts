// The `gateway` bin as npm installs it, against a live stack: package.json's `bin` path, reached through
// a `.bin`-style symlink on PATH, in a copy of the checkout holding only what a fresh clone holds (no
// dist/, no generated document), so `npx gateway` needs no build step; and the same bin from the
// tarball `npm pack` makes, which runs the compiled client.
import { execFile, execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { startGateway, type Gateway, type Tenant } from './support/harness';

const execFileAsync = promisify(execFile);
const ROOT = join(__dirname, '..');

let gw: Gateway;
let t: Tenant;
let scratch: string;
let clone: string;
beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'gateway-bin-'));
  clone = join(scratch, 'clone');
  freshClone(clone);
  gw = await startGateway({ worker: false });
  t = await gw.createTenant();
});
afterAll(async () => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  await gw?.stop();
});

/** The files a fresh clone of this working tree has (tracked, and new ones not ignored), and the installed packages. */
function freshClone(dir: string): void {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((file) => file !== '' && existsSync(join(ROOT, file)));
  for (const file of files) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    cpSync(join(ROOT, file), join(dir, file));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
}

/** Links the package's bin into a directory on PATH, as npm does in node_modules/.bin, and runs it. */
function installBin(packageDir: string): (args: string[]) => Promise<{ stdout: string; stderr: string }> {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
    bin: Record<string, string>;
  };
  const target = join(packageDir, manifest.bin.gateway);
  expect(statSync(target).mode & 0o111).not.toBe(0);
  const binDir = mkdtempSync(join(scratch, 'bin-'));
  symlinkSync(target, join(binDir, 'gateway'));
  const env = {
    PATH: `${binDir}:${process.env.PATH}`,
    HOME: scratch,
    XDG_CONFIG_HOME: scratch,
    GATEWAY_BASE_URL: gw.url,
    GATEWAY_API_KEY: t.key,
  };
  return (args) => execFileAsync('gateway', args, { cwd: scratch, env });
}

const whoamiOf = (tenant: Tenant) => ({
  key: { id: tenant.keyId, environment: 'test', scopes: ['*'] },
  organization: { id: tenant.orgId },
  project: { id: tenant.projectId },
});

describe('the gateway bin', () => {
  it('runs in a fresh clone with no build step', async () => {
    expect(existsSync(join(clone, 'dist'))).toBe(false);
    expect(existsSync(join(clone, 'cli', 'generated'))).toBe(false);
    const gateway = installBin(clone);
    const me = await gateway(['whoami', '--json']);
    expect(JSON.parse(me.stdout)).toMatchObject(whoamiOf(t));
    // Its first run wrote the document the commands come from; later runs reuse it while it is current.
    const document = join(clone, 'cli', 'generated', 'openapi.json');
    const written = statSync(document).mtimeMs;
    const listed = JSON.parse((await gateway(['commands', '--json'])).stdout) as {
      commands: Array<{ method: string; path: string }>;
    };
    expect(listed.commands).toContainEqual(expect.objectContaining({ method: 'GET', path: '/v1/whoami' }));
    expect(statSync(document).mtimeMs).toBe(written);
    expect((await gateway(['--version'])).stdout).toMatch(/^\d+\.\d+\.\d+ \(API \d+\.\d+\.\d+\)\n$/);
  }, 180_000);

  it('runs the compiled client from the tarball npm pack makes', async () => {
    const packed = join(scratch, 'packed');
    mkdirSync(packed);
    execFileSync('npm', ['pack', '--pack-destination', packed, '--silent'], { cwd: clone, stdio: 'pipe' });
    const { version } = JSON.parse(readFileSync(join(clone, 'package.json'), 'utf8')) as { version: string };
    execFileSync('tar', ['xzf', join(packed, `agent-payments-gateway-${version}.tgz`)], { cwd: packed });
    const installed = join(packed, 'package');
    expect(existsSync(join(installed, 'cli', 'main.ts'))).toBe(false);
    expect(existsSync(join(installed, 'dist', 'cli', 'main.js'))).toBe(true);
    symlinkSync(join(ROOT, 'node_modules'), join(installed, 'node_modules'));
    const me = await installBin(installed)(['whoami', '--json']);
    expect(JSON.parse(me.stdout)).toMatchObject(whoamiOf(t));
  }, 300_000);
});
