// A secret the local stacks keep across starts (the service token, the development key ring): read
// from its file, or made once and written readable by its owner only.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

export function persistentSecret(file: string, make: () => string): string {
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const value = make();
  writeFileSync(file, `${value}\n`, { mode: 0o600 });
  return value;
}
