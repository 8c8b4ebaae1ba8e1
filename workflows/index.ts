// Every workflow the worker registers. Deterministic code only: no I/O, no clocks, no randomness
// outside the workflow APIs; activities are imported as types. These modules and what they import keep no
// state at module scope: a workflow thread loads them once and shares them among the workflows it runs
// (worker/bundle.ts).
export { workerProbe } from './probe';
export { consentLifecycle } from './consent-lifecycle';
export { contactCodeDelivery, contactCodeCheck } from './contact-code';
export { moneyAttempt } from './attempt';
export { approvalHold } from './approval-hold';
export { approvalSweep } from './approval-sweep';
export { walletReconciliation, reconciliationSweep } from './reconciliation';
export { oauthCredentialSweep } from './oauth-sweep';
export { webhookDelivery } from './webhook-delivery';
export { toolCallReplay } from './tool-call-replay';
export { linkPayment } from './link-payment';
export { ddaRegistration } from './dda-registration';
export { platformFeeSweep } from './platform-fee-sweep';
export { walletTopup } from './wallet-topup';
export { depositWatch } from './deposit-watch';
export { provisioningRun } from './provisioning-run';
export { cardMint } from './card-mint';
export { cardAuthorizationExpiry } from './card-authorization-expiry';
export { cardExpirySweep } from './card-expiry-sweep';
// The workflow types of wallet execute, paid tool calls and consumer spend before the one engine: registered
// so attempts claimed under them finish and their histories replay. Nothing new starts them.
export { spendAttempt } from './legacy/spend-attempt';
export { paidToolCall } from './legacy/paid-tool-call';
export { consumerSpendAttempt } from './legacy/consumer-spend-attempt';
export { kycOnboarding } from './kyc-onboarding';
