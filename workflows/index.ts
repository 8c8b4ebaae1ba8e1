// Every workflow the worker registers. Deterministic code only: no I/O, no clocks, no randomness
// outside the workflow APIs; activities are imported as types.
export { workerProbe } from './probe';
export { spendAttempt } from './spend-attempt';
export { approvalHold } from './approval-hold';
export { approvalSweep } from './approval-sweep';
export { walletReconciliation, reconciliationSweep } from './reconciliation';
export { oauthCredentialSweep } from './oauth-sweep';
