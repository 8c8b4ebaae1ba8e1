// How a test run gets its Chromium: found on PATH or through CHROMIUM_PATH, installed with apt-get when
// root can, or explained in one line; and a run without Chromium stops before anything starts.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { planChromium, provisionChromium, runIncludesBrowserTests } from '../support/browser';

describe('planChromium', () => {
  it('uses a chromium found on PATH whoever runs the tests', () => {
    expect(planChromium({ found: '/usr/bin/chromium', uid: 1000, aptGet: false })).toEqual({
      action: 'ok',
      path: '/usr/bin/chromium',
    });
    expect(planChromium({ found: '/usr/bin/chromium', uid: 0, aptGet: true })).toEqual({
      action: 'ok',
      path: '/usr/bin/chromium',
    });
  });

  it('prefers CHROMIUM_PATH, and names it when it points nowhere instead of installing over it', () => {
    expect(
      planChromium({
        configured: '/opt/chrome/chrome',
        configuredExecutable: true,
        found: '/usr/bin/chromium',
        uid: 0,
        aptGet: true,
      }),
    ).toEqual({ action: 'ok', path: '/opt/chrome/chrome' });
    const plan = planChromium({
      configured: '/opt/missing',
      configuredExecutable: false,
      uid: 0,
      aptGet: true,
    });
    expect(plan).toEqual({
      action: 'explain',
      message: expect.stringContaining('CHROMIUM_PATH=/opt/missing is not an executable file'),
    });
  });

  it('installs it when missing and root has apt-get', () => {
    expect(planChromium({ uid: 0, aptGet: true })).toEqual({ action: 'install' });
  });

  it('tells anyone else what to install, in one line', () => {
    const user = planChromium({ uid: 1000, aptGet: true });
    expect(user).toEqual({
      action: 'explain',
      message: expect.stringContaining('sudo apt-get install chromium'),
    });
    const noApt = planChromium({ uid: 0, aptGet: false });
    expect(noApt).toEqual({
      action: 'explain',
      message: expect.stringContaining('package manager, or set CHROMIUM_PATH'),
    });
    for (const plan of [user, noApt])
      expect(plan.action === 'explain' && plan.message.includes('\n')).toBe(false);
  });
});

describe('runIncludesBrowserTests', () => {
  it('provisions for the whole suite and for runs naming a page test, not for other runs', () => {
    expect(runIncludesBrowserTests('/repo', undefined)).toBe(true);
    expect(runIncludesBrowserTests('/repo', '')).toBe(true);
    expect(runIncludesBrowserTests('/repo', 'test/oauth-page.test.ts')).toBe(true);
    expect(runIncludesBrowserTests('/repo', 'consent-page|ledger')).toBe(true);
    expect(runIncludesBrowserTests('/repo', 'test/worker-probe.test.ts')).toBe(false);
  });
});

describe('provisionChromium on this machine', () => {
  let bin: string;
  const saved = { PATH: process.env.PATH, CHROMIUM_PATH: process.env.CHROMIUM_PATH };
  beforeEach(() => {
    bin = mkdtempSync(path.join(os.tmpdir(), 'gateway-path-'));
    delete process.env.CHROMIUM_PATH;
  });
  afterEach(() => {
    process.env.PATH = saved.PATH;
    if (saved.CHROMIUM_PATH === undefined) delete process.env.CHROMIUM_PATH;
    else process.env.CHROMIUM_PATH = saved.CHROMIUM_PATH;
    rmSync(bin, { recursive: true, force: true });
  });

  it('returns the chromium on PATH without installing anything', () => {
    writeFileSync(path.join(bin, 'chromium'), '#!/bin/sh\n');
    chmodSync(path.join(bin, 'chromium'), 0o755);
    process.env.PATH = bin;
    const said: string[] = [];
    expect(provisionChromium((line) => said.push(line))).toBe(path.join(bin, 'chromium'));
    expect(said).toEqual([]);
  });

  it('with neither chromium nor apt-get on PATH, throws one line naming what to install', () => {
    process.env.PATH = bin;
    const said: string[] = [];
    let thrown: Error | undefined;
    try {
      provisionChromium((line) => said.push(line));
    } catch (error) {
      thrown = error as Error;
    }
    expect(thrown?.message).toMatch(
      /^The browser tests need Chromium, which is not installed: install Chromium with/,
    );
    expect(thrown?.stack?.trim()).toBe(thrown?.message);
    expect(said).toEqual([]);
  });
});

it('stops a run of the browser tests on a machine without Chromium at once, with that one line', () => {
  const bin = mkdtempSync(path.join(os.tmpdir(), 'gateway-path-'));
  // The rest of the setup may look up users (`id`); only Chromium and apt-get are missing from this PATH.
  const id = (process.env.PATH ?? '')
    .split(path.delimiter)
    .map((dir) => path.join(dir, 'id'))
    .find((file) => existsSync(file));
  if (id) symlinkSync(id, path.join(bin, 'id'));
  try {
    const root = path.join(__dirname, '..', '..');
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: bin };
    delete env.CHROMIUM_PATH;
    delete env.TEST_DATABASE_ADMIN_URL;
    const run = spawnSync(
      process.execPath,
      [path.join(root, 'node_modules', 'jest', 'bin', 'jest.js'), 'test/oauth-page.test.ts', '--forceExit'],
      { cwd: root, env, encoding: 'utf8' },
    );
    expect(run.status).toBe(1);
    const lines = `${run.stdout}${run.stderr}`.split('\n').filter((line) => line.trim() !== '');
    expect(lines).toEqual([
      expect.stringMatching(/^The browser tests need Chromium, which is not installed: /),
    ]);
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
}, 60_000);
