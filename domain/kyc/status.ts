// The KYC application states the gateway shows (spec: States, KYC application) from what the provider
// reports: its proposal status, the document-check page, and whether the account can be read yet.

export type KycStatus = 'pending' | 'documentscopy_pending' | 'approved' | 'rejected';

export interface ProviderProposal {
  /** The provider's own status word, or null when it reports none. */
  status: string | null;
  documentscopyUrl: string | null;
  /** Why the provider rejected the proposal, when it did and said. */
  rejectionReason?: string | null;
}

/**
 * Pending covers the provider's pending and processing, no status at all, and an approval whose
 * account is not readable yet; an approval counts only with a readable account.
 */
export function kycStatusOf(proposal: ProviderProposal, accountReadable: boolean): KycStatus {
  switch ((proposal.status ?? '').toUpperCase()) {
    case 'PENDING_DOCUMENTSCOPY':
      return 'documentscopy_pending';
    case 'APPROVED':
      return accountReadable ? 'approved' : 'pending';
    case 'REJECTED':
      return 'rejected';
    default:
      return 'pending';
  }
}

/** Whether the provider must still be asked: approvals and rejections are final. */
export const isFinal = (status: KycStatus): boolean => status === 'approved' || status === 'rejected';

/** The document claim as digits; null when it holds no digit at all. */
export function documentDigits(claim: string): string | null {
  const digits = claim.replace(/[^0-9]/g, '');
  return digits.length > 0 ? digits : null;
}
