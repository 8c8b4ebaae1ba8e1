// Starting and signalling the consent lifecycle workflow. The database commit is the
// decision; the signal tells the workflow which clock to hold. signalWithStart also restarts a
// lifecycle that is missing (never started, or closed early), so a mandate is never left without its timer.
import type { ConsentRow } from '../domain/consents/consents';
import type { MandateRow } from '../domain/mandates/mandates';
import type { Logger } from '../runtime/logger';
import { searchAttributes } from '../contracts/search-attributes';
import {
  mandateAmendedSignal,
  mandateRevokedSignal,
  mandateSignedSignal,
  type MandateTimer,
} from '../contracts/consent-messages';
import { workflowIds } from '../contracts/workflow-ids';
import type { consentLifecycle } from '../workflows/consent-lifecycle';
import { signalWithStart, start, type Orchestrator } from './temporal';

function attributes(
  consent: Pick<ConsentRow, 'org_id' | 'project_id' | 'environment'>,
  mandate?: Pick<MandateRow, 'id' | 'consumer_id'>,
) {
  return searchAttributes({
    orgId: consent.org_id,
    projectId: consent.project_id,
    environment: consent.environment,
    ...(mandate ? { consumerId: mandate.consumer_id, mandateId: mandate.id } : {}),
  });
}

/** Seconds from now until `iso`, by this process's clock (the signing transaction's clock is the same). */
function secondsUntil(iso: string): number {
  return Math.max(0, Math.ceil((Date.parse(iso) - Date.now()) / 1000));
}

export function mandateTimer(mandate: MandateRow): MandateTimer {
  return {
    mandateId: mandate.id,
    consumerId: mandate.consumer_id,
    revision: mandate.revision,
    expiresInSeconds: secondsUntil(mandate.expires_at),
  };
}

/**
 * Started before the consent row is written, so no database connection waits on Temporal: if the row
 * then fails to commit, the lifecycle is terminated (and would otherwise find no row and end at 24 hours).
 */
export async function startConsentLifecycle(
  o: Orchestrator,
  consent: Pick<ConsentRow, 'id' | 'token_digest' | 'org_id' | 'project_id' | 'environment'>,
  tokenExpiresInSeconds: number,
): Promise<{ abandon(): Promise<void> }> {
  const handle = await start<typeof consentLifecycle>(o, 'consentLifecycle', {
    workflowId: workflowIds.consent(consent.token_digest),
    args: [{ consentId: consent.id, tokenExpiresInSeconds }],
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    typedSearchAttributes: attributes(consent),
  });
  return {
    abandon: () =>
      handle.terminate('consent row was not written').then(
        () => undefined,
        () => undefined,
      ),
  };
}

type LifecycleSignal =
  { kind: 'signed'; timer: MandateTimer } | { kind: 'amended'; timer: MandateTimer } | { kind: 'revoked' };

/**
 * Tells the lifecycle about a committed change. A failure here is logged, not raised: the change is
 * already durable, the mandate's own expires_at still bounds it, and the next signal restarts the clock.
 */
export async function signalLifecycle(
  o: Orchestrator,
  log: Logger,
  consent: Pick<ConsentRow, 'id' | 'token_digest' | 'org_id' | 'project_id' | 'environment'>,
  mandate: MandateRow,
  signal: LifecycleSignal,
): Promise<void> {
  const timer = mandateTimer(mandate);
  const common = {
    workflowId: workflowIds.consent(consent.token_digest),
    args: [{ consentId: consent.id, tokenExpiresInSeconds: 0, mandate: timer }] as [
      Parameters<typeof consentLifecycle>[0],
    ],
    typedSearchAttributes: attributes(consent, mandate),
  };
  try {
    if (signal.kind === 'signed') {
      await signalWithStart<typeof consentLifecycle, [MandateTimer]>(o, 'consentLifecycle', {
        ...common,
        signal: mandateSignedSignal,
        signalArgs: [signal.timer],
      });
    } else if (signal.kind === 'amended') {
      await signalWithStart<typeof consentLifecycle, [MandateTimer]>(o, 'consentLifecycle', {
        ...common,
        signal: mandateAmendedSignal,
        signalArgs: [signal.timer],
      });
    } else {
      await signalWithStart<typeof consentLifecycle, [{ mandateId: string }]>(o, 'consentLifecycle', {
        ...common,
        signal: mandateRevokedSignal,
        signalArgs: [{ mandateId: mandate.id }],
      });
    }
  } catch (error) {
    log.error('consent lifecycle signal failed', {
      mandate_id: mandate.id,
      signal: signal.kind,
      error: (error as Error).message,
    });
  }
}
