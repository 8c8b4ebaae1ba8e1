// The activities of a DDA registration: ask the provider to register or end it, and record what the
// provider said. Each reads the row first and acts only from the state it expects, so a retry or a run
// started for a row that has moved on changes nothing; the provider keys a registration by its
// clientRequestId, so a repeated register call registers once.
import { ApplicationFailure } from '@temporalio/common';
import {
  findDdaSubscription,
  markDdaActive,
  markDdaDeleted,
  markDdaError,
  markDdaRegistered,
} from '../domain/dda/subscriptions';
import type { Environment } from '../domain/tenancy/api-key-format';
import { ddaProvider, DdaRefused, type DdaProvider } from '../providers/dda/client';
import { requireEndpoint } from '../domain/providers/endpoints';
import type { DdaRegisterStep, DdaRegistrationInput, DdaStatusView } from '../contracts/dda-messages';
import type { ActivityDeps } from './deps';

const DDA_REFUSED = 'DdaRefused';

export function ddaActivities(
  deps: ActivityDeps,
  providerFor: (environment: Environment) => DdaProvider = defaultProvider(deps),
) {
  const rowOf = async (id: string) => {
    const row = await findDdaSubscription(deps.db, id);
    if (!row) throw ApplicationFailure.nonRetryable(`no DDA registration ${id}`, DDA_REFUSED);
    return row;
  };
  return {
    async registerDdaSubscription(input: DdaRegistrationInput): Promise<DdaRegisterStep> {
      const row = await rowOf(input.subscriptionId);
      if (row.status !== 'pending' || row.registered_at !== null)
        return { step: 'settled', status: row.status, registered: row.registered_at !== null };
      try {
        await providerFor(row.environment).register({
          document: row.document,
          clientName: row.client_name,
          clientRequestId: row.client_request_id,
          callbackUrl: input.callbackUrl,
        });
      } catch (error) {
        if (error instanceof DdaRefused) return { step: 'refused', code: error.code };
        throw error;
      }
      if (await markDdaRegistered(deps.db, row.id)) return { step: 'registered' };
      const now = await rowOf(row.id);
      return { step: 'settled', status: now.status, registered: now.registered_at !== null };
    },
    async markDdaSubscriptionError(id: string, code: string): Promise<DdaStatusView> {
      const row = await markDdaError(deps.db, id, code);
      return row ? row.status : (await rowOf(id)).status;
    },
    async activateDdaSubscription(id: string, providerSubscriptionId: string): Promise<DdaStatusView> {
      const row = await markDdaActive(deps.db, id, providerSubscriptionId);
      return row ? row.status : (await rowOf(id)).status;
    },
    async deleteDdaSubscriptionUpstream(id: string): Promise<void> {
      const row = await rowOf(id);
      if (row.status === 'deleted') return;
      try {
        await providerFor(row.environment).remove(row.client_request_id);
      } catch (error) {
        if (error instanceof DdaRefused)
          throw ApplicationFailure.nonRetryable(error.message, DDA_REFUSED, { code: error.code });
        throw error;
      }
    },
    async markDdaSubscriptionDeleted(id: string): Promise<void> {
      await markDdaDeleted(deps.db, id);
    },
  };
}

/** The DDA provider of the registration's environment. */
function defaultProvider(deps: ActivityDeps): (environment: Environment) => DdaProvider {
  // Unconfigured is an outage to the caller: retried, then reported as the provider unavailable.
  return (environment) =>
    ddaProvider({
      baseUrl: requireEndpoint(deps.config, 'dda', environment),
      timeoutMs: deps.config.providerTimeoutMs,
    });
}
