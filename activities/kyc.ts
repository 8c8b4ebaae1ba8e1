// The activities of a KYC onboarding: look at the provider's proposal and record where it stands, open
// the approved proposal's account at the bank, give it its funding source and the consumer its verified
// document, and register the account's Pix key. Each reads the row first and skips what is done, and
// every provider call carries an idempotency key, so a retry or a restarted worker repeats nothing.
import { ApplicationFailure } from '@temporalio/common';
import {
  attachFundingSource,
  findProposal,
  recordPixKey,
  recordPixKeyError,
  recordProviderState,
  verifyConsumerDocument,
  type ProposalRow,
} from '../domain/kyc/proposals';
import { isFinal, kycStatusOf } from '../domain/kyc/status';
import { configuredKycProvider, KycProviderFailed, type KycProvider } from '../providers/kyc/adapter';
import type { KycCheckStep, KycOnboardingStatus } from '../contracts/kyc-messages';
import type { ActivityDeps } from './deps';

const KYC_PROPOSAL_MISSING = 'KycProposalMissing';

export function kycActivities(deps: ActivityDeps) {
  const rowOf = async (proposalId: string): Promise<ProposalRow> => {
    const row = await findProposal(deps.db, proposalId);
    if (!row) throw ApplicationFailure.nonRetryable(`no KYC proposal ${proposalId}`, KYC_PROPOSAL_MISSING);
    return row;
  };
  // Unconfigured reads as the provider failing: the onboarding waits and asks again.
  const providerOf = (row: ProposalRow): KycProvider => {
    const provider = configuredKycProvider(deps.config, row.environment);
    if (!provider) throw new KycProviderFailed('no KYC provider configured');
    return provider;
  };

  return {
    /** One look at the provider. An approval is reported, not recorded: it counts once its account is open. */
    async checkKycProposal(proposalId: string): Promise<KycCheckStep> {
      const row = await rowOf(proposalId);
      const standing = (unreachable: boolean): KycCheckStep => ({
        status: row.status,
        approvedUpstream: false,
        unreachable,
        reason: row.rejection_reason,
      });
      if (isFinal(row.status)) return standing(false);
      let reported;
      try {
        reported = await providerOf(row).proposal(row.id, row.document_number);
      } catch (error) {
        if (error instanceof KycProviderFailed) {
          deps.log.warn('KYC provider unreachable; the onboarding asks again later', {
            proposal_id: proposalId,
            reason: error.message,
          });
          return standing(true);
        }
        throw error;
      }
      const approvedUpstream = (reported.status ?? '').toUpperCase() === 'APPROVED';
      const status = kycStatusOf(reported, false);
      const recorded = await recordProviderState(deps.db, row.id, {
        status,
        hostedUrl: status === 'documentscopy_pending' ? reported.documentscopyUrl : null,
        account: null,
        rejectionReason: reported.rejectionReason ?? null,
      });
      return {
        status: recorded.status,
        approvedUpstream,
        unreachable: false,
        reason: recorded.rejection_reason,
      };
    },

    /** Opens the approved proposal's account (once: the bank keys it by the proposal) and records the approval. */
    async openKycAccount(proposalId: string): Promise<KycOnboardingStatus> {
      const row = await rowOf(proposalId);
      if (row.account && row.status === 'approved') return row.status;
      const account = await providerOf(row).openAccount(row.id, `kyc-account/${row.id}`);
      const recorded = await recordProviderState(deps.db, row.id, {
        status: 'approved',
        hostedUrl: null,
        account,
      });
      return recorded.status;
    },

    /** The approval's one `pix-partner` funding source and the consumer's verified document. */
    async completeKycApproval(proposalId: string): Promise<{ fundingSourceId: string | null }> {
      const row = await rowOf(proposalId);
      let done = row;
      if (row.consumer_id && !row.funding_source_id)
        done = await attachFundingSource(
          deps.db,
          deps.config.encryptionKeys,
          { orgId: row.org_id, projectId: row.project_id, environment: row.environment },
          row.id,
          row.consumer_id,
        );
      done = await verifyConsumerDocument(deps.db, row.id);
      return { fundingSourceId: done.funding_source_id };
    },

    /** Registers the account's Pix key; a failure is recorded (the account stays usable) and answered false. */
    async registerKycPixKey(proposalId: string): Promise<boolean> {
      const row = await rowOf(proposalId);
      if (row.pix_key) return true;
      if (row.status !== 'approved' || !row.account) return false;
      try {
        const key = await providerOf(row).registerPixKey(row.account, `kyc-pix/${row.id}`);
        await recordPixKey(deps.db, row.id, key);
        return true;
      } catch (error) {
        if (!(error instanceof KycProviderFailed)) throw error;
        await recordPixKeyError(
          deps.db,
          row.id,
          'The Pix key could not be registered yet; it is retried on its own schedule',
        );
        return false;
      }
    },
  };
}
