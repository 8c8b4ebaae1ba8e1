// Workflow ids are business keys, so a duplicate request finds the running workflow instead of starting another.
export const workflowIds = {
  probe: (requestId: string): string => `probe/${requestId}`,
  // Keyed by the token's digest: the id comes from the token without putting a usable token in Temporal.
  consent: (tokenDigest: string): string => `consent/${tokenDigest}`,
  contactCodeDelivery: (verificationId: string): string => `contact-verification/${verificationId}/delivery`,
  contactCodeCheck: (verificationId: string, attempt: number): string => `contact-verification/${verificationId}/check/${attempt}`,
  consumerSpend: (orgId: string, attemptId: string): string => `consumer-spend/${orgId}/${attemptId}`,
  oauthSweepSchedule: (): string => 'oauth-sweep',
  oauthSweep: (): string => 'oauth-sweep/run',
  /** One webhook delivery chain, named by its first delivery id. */
  delivery: (chainId: string): string => `delivery/${chainId}`,
};
