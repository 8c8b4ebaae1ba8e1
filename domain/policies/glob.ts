// Agent and tool patterns: `*` matches any run of characters, `?` one character, everything else itself.
// An empty pattern list matches everything.

const cache = new Map<string, RegExp>();

function compile(pattern: string): RegExp {
  let regex = cache.get(pattern);
  if (!regex) {
    const body = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
    regex = new RegExp(`^${body}$`, 's');
    cache.set(pattern, regex);
  }
  return regex;
}

export function globMatch(pattern: string, value: string): boolean {
  return compile(pattern).test(value);
}

export function matchesAny(patterns: readonly string[], value: string): boolean {
  return patterns.length === 0 || patterns.some((pattern) => globMatch(pattern, value));
}
