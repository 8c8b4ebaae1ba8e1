// Whether a jest run selects any of the given test files (no path pattern selects them all): the global
// setup installs what those files need once, before any test's hook clock starts.
import path from 'node:path';

export function runIncludes(rootDir: string, testPathPattern: string | undefined, files: string[]): boolean {
  if (!testPathPattern) return true;
  let pattern: RegExp;
  try {
    pattern = new RegExp(testPathPattern, 'i');
  } catch {
    return true;
  }
  return files.some((file) => pattern.test(path.join(rootDir, file)));
}
