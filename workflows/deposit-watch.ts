// The watcher of a USDC wallet's deposit address (`deposit-watch/<wallet>`): every poll it asks one
// activity to credit the transfers that reached the confirmations the gateway wants. The scan's cursor
// and every credit live in PostgreSQL (credits keyed by tx hash and log index), so a worker lost mid-scan
// repeats the scan on resume: nothing is credited twice and no block is skipped. The history is kept
// short by continuing as new; the watcher ends when its wallet is closed.
import { continueAsNew, proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { DepositWatchInput } from '../contracts/topup-messages';

const acts = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  // A chain or database that does not answer is waited out: the cursor has not moved, nothing is lost.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** About one block of a public chain; the confirmations, not the poll, decide when money counts. */
export const DEPOSIT_POLL_MS = 15_000;
const SCANS_PER_RUN = 500;

export async function depositWatch(input: DepositWatchInput): Promise<'closed'> {
  for (let scans = 0; scans < SCANS_PER_RUN; scans++) {
    const scan = await acts.scanUsdcDeposits({ walletId: input.walletId });
    if (scan.state === 'closed') return 'closed';
    await sleep(DEPOSIT_POLL_MS);
  }
  return continueAsNew<typeof depositWatch>(input);
}
