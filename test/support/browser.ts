// Chromium for the browser tests of the HTML pages (Debian's package, driven by playwright-core): the
// test run's global setup finds it, installs it where it can (root with apt-get), or stops the run with
// one line saying what to install; the page tests launch it through launchChromium().
import { runIncludes } from './run-includes';
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/** The test files that drive a browser; the setup provisions Chromium only for runs that include one. */
export const BROWSER_TESTS = [
  'test/consent-page.test.ts',
  'test/oauth-page.test.ts',
  'test/console.test.ts',
  'test/payment-links-page.test.ts',
];

const NAMES = ['chromium', 'chromium-browser'];

export type ChromiumPlan =
  { action: 'ok'; path: string } | { action: 'install' } | { action: 'explain'; message: string };

export interface ChromiumFacts {
  /** CHROMIUM_PATH, when set. */
  configured?: string;
  configuredExecutable?: boolean;
  /** A chromium found on PATH. */
  found?: string;
  uid: number | undefined;
  aptGet: boolean;
}

const OR_CONFIGURE = 'or set CHROMIUM_PATH to a Chromium or Chrome binary';
const WHAT_TO_INSTALL = `install Debian's chromium package (apt-get install chromium) ${OR_CONFIGURE}`;

/** What the setup does about Chromium, from what it found on this machine. */
export function planChromium(facts: ChromiumFacts): ChromiumPlan {
  if (facts.configured !== undefined) {
    return facts.configuredExecutable
      ? { action: 'ok', path: facts.configured }
      : {
          action: 'explain',
          message: `The browser tests need Chromium, but CHROMIUM_PATH=${facts.configured} is not an executable file: fix it or unset it.`,
        };
  }
  if (facts.found) return { action: 'ok', path: facts.found };
  if (facts.uid === 0 && facts.aptGet) return { action: 'install' };
  const how = facts.aptGet
    ? `sudo apt-get install chromium, ${OR_CONFIGURE}`
    : `install Chromium with this system's package manager, ${OR_CONFIGURE}`;
  return { action: 'explain', message: `The browser tests need Chromium, which is not installed: ${how}.` };
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function which(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && executable(path.join(dir, name))) return path.join(dir, name);
  }
  return undefined;
}

function facts(): ChromiumFacts {
  const configured = process.env.CHROMIUM_PATH || undefined;
  return {
    configured,
    configuredExecutable: configured !== undefined && executable(configured),
    found: NAMES.map(which).find(Boolean),
    uid: process.getuid?.(),
    aptGet: which('apt-get') !== undefined,
  };
}

/** An error jest prints as its one line, without a stack of setup internals. */
function oneLine(message: string): Error {
  const error = new Error(message);
  error.stack = `${message}\n`;
  return error;
}

function apt(args: string[]): void {
  const result = spawnSync('apt-get', ['-qq', '-o', 'DPkg::Lock::Timeout=300', ...args], {
    encoding: 'utf8',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (result.status !== 0) {
    const last =
      `${result.stderr}\n${result.stdout}`.trim().split('\n').filter(Boolean).pop() ??
      String(result.error?.message);
    throw oneLine(
      `Installing Chromium for the browser tests failed (apt-get ${args.join(' ')}: ${last}); ${WHAT_TO_INSTALL}.`,
    );
  }
}

/** Finds Chromium or installs it, and returns its path; else throws one line saying what to install. */
export function provisionChromium(say: (line: string) => void): string {
  const plan = planChromium(facts());
  if (plan.action === 'ok') return plan.path;
  if (plan.action === 'explain') throw oneLine(plan.message);
  say("Installing Debian's chromium for the browser tests (apt-get install chromium)…");
  apt(['update']);
  apt(['install', '-y', 'chromium']);
  const after = planChromium({ ...facts(), aptGet: false });
  if (after.action !== 'ok')
    throw oneLine(`apt-get installed chromium but no chromium is on PATH; ${WHAT_TO_INSTALL}.`);
  return after.path;
}

/** Whether a jest run selects any browser test (no path pattern selects them all). */
export function runIncludesBrowserTests(rootDir: string, testPathPattern: string | undefined): boolean {
  return runIncludes(rootDir, testPathPattern, BROWSER_TESTS);
}

/** Headless Chromium at the path the global setup found (CHROMIUM_PATH). */
export function launchChromium(): Promise<Browser> {
  const executablePath = process.env.CHROMIUM_PATH;
  if (!executablePath)
    throw new Error(
      'CHROMIUM_PATH is unset: run the browser tests through jest (npm test), whose setup finds Chromium',
    );
  return chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}
