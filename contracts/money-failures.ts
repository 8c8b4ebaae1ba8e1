// Failure types of the money workflows, as string constants (class names do not survive minification).
export const MoneyFailure = {
  ApprovalNotPending: 'approval_not_pending',
  ApprovalExpired: 'approval_expired',
  WalletNotFound: 'wallet_not_found',
} as const;
