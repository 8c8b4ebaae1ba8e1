// A small seeded generator for property tests: every run prints its seed, and PROPERTY_SEED=<n>
// replays a failing run exactly.
export interface Random {
  seed: number;
  next(): number; // [0, 1)
  int(min: number, max: number): number; // inclusive
  pick<T>(items: readonly T[]): T;
  bool(): boolean;
  shuffle<T>(items: readonly T[]): T[];
}

export function seededRandom(seed = Number(process.env.PROPERTY_SEED ?? Date.now() % 2 ** 31)): Random {
  let state = seed >>> 0;
  // mulberry32: tiny, fast and good enough to explore inputs.
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    seed,
    next,
    int,
    pick: (items) => items[int(0, items.length - 1)],
    bool: () => next() < 0.5,
    shuffle: (items) => {
      const copy = [...items];
      for (let i = copy.length - 1; i > 0; i--) {
        const j = int(0, i);
        [copy[i], copy[j]] = [copy[j], copy[i]];
      }
      return copy;
    },
  };
}

/** Runs `check` on `runs` generated cases; a failure names the seed and the case index to replay it. */
export function forAll(name: string, runs: number, check: (random: Random, index: number) => void): void {
  const random = seededRandom();
  for (let i = 0; i < runs; i++) {
    try {
      check(random, i);
    } catch (error) {
      (error as Error).message =
        `${name} failed on case ${i} (replay with PROPERTY_SEED=${random.seed}): ${(error as Error).message}`;
      throw error;
    }
  }
}
