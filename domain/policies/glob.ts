// Agent and tool patterns: `*` matches any run of characters, `?` one character, everything else itself.
// An empty pattern list matches everything.

/**
 * Wildcard matching in O(pattern × value) at worst, without regular expressions: a tenant writes these
 * patterns, and a regex built from `*a*a*a…` backtracks exponentially, stalling every evaluation of the
 * process. On a mismatch after a `*`, the star takes one more character and matching resumes from there.
 */
export function globMatch(pattern: string, value: string): boolean {
  const p = Array.from(pattern);
  const v = Array.from(value);
  let pi = 0;
  let vi = 0;
  let star = -1; // position in p of the last `*` seen
  let resume = 0; // position in v where that star's run ends so far
  while (vi < v.length) {
    if (pi < p.length && (p[pi] === '?' || (p[pi] !== '*' && p[pi] === v[vi]))) {
      pi += 1;
      vi += 1;
    } else if (pi < p.length && p[pi] === '*') {
      star = pi;
      resume = vi;
      pi += 1;
    } else if (star >= 0) {
      pi = star + 1;
      resume += 1;
      vi = resume;
    } else {
      return false;
    }
  }
  while (pi < p.length && p[pi] === '*') pi += 1;
  return pi === p.length;
}

export function matchesAny(patterns: readonly string[], value: string): boolean {
  return patterns.length === 0 || patterns.some((pattern) => globMatch(pattern, value));
}
