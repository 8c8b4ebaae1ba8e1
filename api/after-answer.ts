// Work an answer does not wait for (a workflow started once the issuer has its reply), kept per process so
// a stopping process lets it land before it closes its Temporal connection. A failure is logged, never thrown:
// the answer has gone.
import type { AppDeps } from './deps';

const running = new WeakMap<AppDeps, Set<Promise<void>>>();

export function afterAnswer(deps: AppDeps, what: string, work: () => Promise<void>): void {
  let pending = running.get(deps);
  if (!pending) running.set(deps, (pending = new Set()));
  const task = work().catch((error: unknown) =>
    deps.log.warn(`${what} failed after the answer`, {
      error: error instanceof Error ? error.message : String(error),
    }),
  );
  pending.add(task);
  void task.finally(() => pending.delete(task));
}

/** Resolves once every piece of after-answer work started so far has landed or failed. */
export async function afterAnswersSettled(deps: AppDeps): Promise<void> {
  await Promise.all([...(running.get(deps) ?? [])]);
}
