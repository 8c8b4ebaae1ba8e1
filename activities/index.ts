// Builds every activity with its dependencies injected; the worker registers the result.
import type { ActivityDeps } from './deps';
import { oauthActivities } from './oauth';
import { probeActivities } from './probe';
import { consentActivities } from './consents';
import { contactVerificationActivities } from './contact-verification';
import { webhookActivities } from './webhooks';
import { consumerPaymentActivities } from './consumer-payments';
import { wiredSeams } from '../domain/consumer-payments/wiring';
import { spendActivities } from './spend';
import { attemptActivities } from './attempts';
import { approvalActivities } from './approvals';
import { reconciliationActivities } from './reconciliation';
import { toolCallActivities } from './tool-calls';
import { linkPaymentActivities } from './link-payments';
import { ddaActivities } from './dda';
import { toolChargeActivities } from './tool-charges';
import { topupActivities } from './topups';
import { provisioningActivities } from './provisioning';
import { cardActivities } from './cards';
import { kycActivities } from './kyc';

export function createActivities(deps: ActivityDeps) {
  return {
    ...probeActivities(deps.db),
    ...consentActivities(deps.db),
    ...contactVerificationActivities(deps.db, deps.config),
    ...consumerPaymentActivities(deps, wiredSeams(deps.config.encryptionKeys)),
    ...attemptActivities(deps),
    ...spendActivities(deps),
    ...approvalActivities(deps),
    ...reconciliationActivities(deps),
    ...oauthActivities(deps.db),
    ...webhookActivities(deps),
    ...toolCallActivities(deps),
    ...linkPaymentActivities(deps),
    ...ddaActivities(deps),
    ...toolChargeActivities(deps),
    ...topupActivities(deps),
    ...provisioningActivities(deps),
    ...cardActivities(deps),
    ...kycActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
