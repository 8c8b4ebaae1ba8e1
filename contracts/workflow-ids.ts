// Workflow ids are business keys, so a duplicate request finds the running workflow instead of starting another.
export const workflowIds = {
  probe: (requestId: string): string => `probe/${requestId}`,
  // Keyed by the token's digest: the id comes from the token without putting a usable token in Temporal.
  consent: (tokenDigest: string): string => `consent/${tokenDigest}`,
  contactCodeDelivery: (verificationId: string): string => `contact-verification/${verificationId}/delivery`,
  contactCodeCheck: (verificationId: string, attempt: number): string =>
    `contact-verification/${verificationId}/check/${attempt}`,
  consumerSpend: (orgId: string, attemptId: string): string => `consumer-spend/${orgId}/${attemptId}`,
  /** An approved consumer spend's replay: one per approval. */
  consumerSpendReplay: (orgId: string, attemptId: string, approvalId: string): string =>
    `consumer-spend/${orgId}/${attemptId}/${approvalId}`,
  spend: (orgId: string, attemptId: string): string => `spend/${orgId}/${attemptId}`,
  /** The replay of a call held for approval: one per approval, so approving twice cannot pay twice. */
  spendReplay: (orgId: string, attemptId: string, approvalId: string): string =>
    `spend/${orgId}/${attemptId}/${approvalId}`,
  /** A paid tool call of a tenant tool server. */
  toolCharge: (orgId: string, attemptId: string): string => `tool-charge/${orgId}/${attemptId}`,
  /** An approved paid tool call's replay: one per approval. */
  toolChargeReplay: (orgId: string, attemptId: string, approvalId: string): string =>
    `tool-charge/${orgId}/${attemptId}/${approvalId}`,
  approval: (approvalId: string): string => `approval/${approvalId}`,
  /** An approved tool call's replay: one per approval. */
  toolCallReplay: (orgId: string, approvalId: string): string => `tool-call/${orgId}/${approvalId}`,
  approvalSweepSchedule: (): string => 'approvals-sweep',
  approvalSweep: (): string => 'approvals-sweep/run',
  reconciliation: (projectId: string, runId: string): string => `recon/${projectId}/${runId}`,
  reconciliationSweepSchedule: (): string => 'recon-sweep',
  reconciliationSweep: (): string => 'recon-sweep/run',
  oauthSweepSchedule: (): string => 'oauth-sweep',
  oauthSweep: (): string => 'oauth-sweep/run',
  /** One webhook delivery chain, named by its first delivery id. */
  delivery: (chainId: string): string => `delivery/${chainId}`,
  /** One buyer's payment of a payment link. */
  linkPayment: (linkId: string, paymentId: string): string => `link-payment/${linkId}/${paymentId}`,
  /** One Pix top-up of a wallet. */
  walletTopup: (orgId: string, topupId: string): string => `topup/${orgId}/${topupId}`,
  /** The watcher of a USDC wallet's deposit address: one per wallet. */
  depositWatch: (walletId: string): string => `deposit-watch/${walletId}`,
  /** One provisioning run of a sandbox account at a provider. */
  provisioningRun: (runId: string): string => `provisioning/${runId}`,
  /**
   * One approved card authorization's expiry, named by the issuer's authorization id: the workflow its
   * attempt row names (`attempts.workflow_id`).
   */
  cardAuthorization: (issuer: string, issuerAuthorizationId: string): string =>
    `card-authorization/${issuer}/${issuerAuthorizationId}`,
  /** The schedule of the sweep that starts card authorization expiries lost to an outage, and its runs. */
  cardExpirySweepSchedule: (): string => 'card-expiry-sweep',
  cardExpirySweep: (): string => 'card-expiry-sweep/run',
  /** One card's mint flow. */
  cardMint: (flowId: string): string => `card-mint/${flowId}`,
  /** One KYC onboarding, named by the provider's proposal id. */
  kycOnboarding: (proposalId: string): string => `kyc/${proposalId}`,
};
