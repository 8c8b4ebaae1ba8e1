// Waiting on an open Pix charge until it is paid or can no longer be: a notice from the PSP wakes the wait
// (or a look every minute, in case a notice is lost), and the PSP is asked for the charge's state rather
// than the notice trusted. Link payments and wallet top-ups watch their charges the same way.
import { condition } from '@temporalio/workflow';
import type { LinkChargeStateView } from '../activities/link-payments';

const LOOK_EVERY_MS = 60_000;

export type WatchedCharge =
  Extract<LinkChargeStateView, { state: 'paid' }> | { state: 'lapsed'; reason: string };

export async function watchCharge(options: {
  expiresInSeconds: number;
  /** Whether a notice came since the last look, and forgetting it once looked. */
  noticed: () => boolean;
  clearNotice: () => void;
  chargeState: () => Promise<LinkChargeStateView>;
}): Promise<WatchedCharge> {
  const deadline = Date.now() + options.expiresInSeconds * 1000;
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining > 0) await condition(options.noticed, Math.min(remaining, LOOK_EVERY_MS));
    options.clearNotice();
    // Asked even after the deadline: money that landed at the last moment is taken, never lost.
    const state = await options.chargeState();
    if (state.state === 'paid') return state;
    if (state.state === 'closed' || deadline - Date.now() <= 0)
      return { state: 'lapsed', reason: state.state === 'closed' ? state.reason : 'not_paid_in_time' };
  }
}
