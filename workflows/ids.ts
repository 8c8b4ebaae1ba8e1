// Workflow ids are business keys, so a duplicate request finds the running workflow instead of starting another.
export const workflowIds = {
  probe: (requestId: string): string => `probe/${requestId}`,
  consumerSpend: (orgId: string, attemptId: string): string => `consumer-spend/${orgId}/${attemptId}`,
  oauthSweepSchedule: (): string => 'oauth-sweep',
  oauthSweep: (): string => 'oauth-sweep/run',
  /** One webhook delivery chain, named by its first delivery id. */
  delivery: (chainId: string): string => `delivery/${chainId}`,
};
