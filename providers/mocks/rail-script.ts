// How a test scripts one payment on a mock rail provider, by the payment's reference (the attempt id):
//   succeed  – pays and answers at once (Pix: `settle: 'webhook'` answers `processing` and confirms by webhook)
//   refuse   – answers 422 psp_refused and pays nothing
//   timeout  – pays, then never answers: the caller cannot know the outcome until it asks for the status
//   lost     – never answers and pays nothing (the request died on the way in)
//   late     – pays and answers after `delayMs`
//   fail     – answers 503 without paying, `times` times, then behaves as `then`
export type RailScript =
  | { outcome: 'succeed'; settle?: 'sync' | 'webhook'; settleDelayMs?: number }
  | { outcome: 'refuse'; reason?: string }
  | { outcome: 'timeout' }
  | { outcome: 'lost' }
  | { outcome: 'late'; delayMs: number }
  | { outcome: 'fail'; times: number; then?: RailScript };

export interface ScriptBook {
  set(reference: string, script: RailScript): void;
  setDefault(script: RailScript): void;
  /** The script for this request; `fail` counts down and hands over to its successor. */
  take(reference: string): RailScript;
}

export function scriptBook(): ScriptBook {
  const scripts = new Map<string, RailScript>();
  let fallback: RailScript = { outcome: 'succeed' };
  return {
    set: (reference, script) => void scripts.set(reference, script),
    setDefault: (script) => void (fallback = script),
    take(reference) {
      const script = scripts.get(reference) ?? fallback;
      if (script.outcome !== 'fail') return script;
      if (script.times <= 1) scripts.set(reference, script.then ?? { outcome: 'succeed' });
      else scripts.set(reference, { ...script, times: script.times - 1 });
      return script;
    },
  };
}

/** Resolves when `count` requests for a reference have arrived; lets tests wait for a dispatch to land. */
export function arrivals() {
  const counts = new Map<string, number>();
  const waiters: Array<{ reference: string; count: number; resolve: () => void }> = [];
  return {
    note(reference: string) {
      counts.set(reference, (counts.get(reference) ?? 0) + 1);
      for (const waiter of [...waiters]) {
        if ((counts.get(waiter.reference) ?? 0) >= waiter.count) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
    },
    wait(reference: string, count = 1): Promise<void> {
      if ((counts.get(reference) ?? 0) >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ reference, count, resolve }));
    },
  };
}
