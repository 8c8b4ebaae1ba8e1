// DDA registration over HTTP: a registration call checks who may register the document, claims its row
// by client_request_id, and asks the registration's workflow to register it (201 when this call did,
// 200 `replayed` otherwise); a delete asks the workflow to end it upstream; reads come from PostgreSQL.
import { findConsumer } from '../../domain/consumers/consumers';
import type { Tenant } from '../../domain/consumers/tenant';
import { authorizeDdaDocument, parseDdaDocument } from '../../domain/dda/authorize';
import {
  claimDdaSubscription,
  clientRequestIdOf,
  findDdaSubscription,
  findLatestForDocument,
  type DdaSubscriptionRow,
} from '../../domain/dda/subscriptions';
import { ApiError, notFound } from '../../domain/errors';
import { askDdaDeletion, askDdaRegistration, type DdaWorkflowScope } from '../../orchestration/dda';
import { updateFailure } from '../../orchestration/errors';
import type { DdaSubscriptionCreateBody } from '../../schema/http/dda';
import { DDA_PROVIDER_UNAVAILABLE, type DdaRegisterAnswer } from '../../contracts/dda-messages';
import type { AppDeps } from '../deps';

export const DDA_WEBHOOK_PATH = '/webhooks/dda/subscriptions';

const providerUnavailable = () =>
  new ApiError(
    502,
    'dda_provider_unavailable',
    'The DDA provider did not answer; retry with the same idempotency_key',
  );

const scopeOf = (row: DdaSubscriptionRow): DdaWorkflowScope => ({
  orgId: row.org_id,
  projectId: row.project_id,
  environment: row.environment,
  consumerId: row.consumer_id,
  mandateId: row.mandate_id,
});

export interface DdaRegistrationResult {
  row: DdaSubscriptionRow;
  replayed: boolean;
}

export async function registerDdaDocument(
  deps: AppDeps,
  tenant: Tenant,
  consumerId: string,
  body: DdaSubscriptionCreateBody,
  callbackUrl: string,
): Promise<DdaRegistrationResult> {
  const document = parseDdaDocument(body.document);
  const key = body.idempotency_key.trim();
  const authorized = await authorizeDdaDocument(
    deps.db,
    deps.config.encryptionKeys,
    tenant,
    consumerId,
    document,
  );
  const claim = await claimDdaSubscription(deps.db, tenant, {
    consumerId,
    document: authorized.document,
    clientRequestId: clientRequestIdOf(tenant.orgId, consumerId, authorized.document, key),
    mandateId: authorized.mandateId,
    clientName: body.client_name ?? null,
  });
  const { row } = claim;
  // Registered, refused or ended: there is nothing left for this call to register.
  if (row.status !== 'pending' || row.registered_at !== null) return { row, replayed: true };

  let answer: DdaRegisterAnswer;
  try {
    answer = await askDdaRegistration(deps.temporal, { subscriptionId: row.id, callbackUrl }, scopeOf(row));
  } catch (error) {
    deps.log.warn('dda registration could not reach its workflow', {
      subscription_id: row.id,
      error: (error as Error).message,
    });
    throw new ApiError(
      503,
      'dda_claim_unavailable',
      'The registration could not be started; retry with the same idempotency_key',
    );
  }
  if (answer.outcome === 'unavailable') throw providerUnavailable();
  const now = (await findDdaSubscription(deps.db, row.id)) ?? row;
  return { row: now, replayed: answer.outcome !== 'registered' };
}

async function requireConsumer(deps: AppDeps, tenant: Tenant, consumerId: string): Promise<void> {
  if (!(await findConsumer(deps.db, tenant, consumerId))) throw notFound('Consumer');
}

export async function readDdaRegistration(
  deps: AppDeps,
  tenant: Tenant,
  consumerId: string,
  rawDocument: string,
): Promise<DdaSubscriptionRow> {
  const document = parseDdaDocument(rawDocument);
  await requireConsumer(deps, tenant, consumerId);
  const row = await findLatestForDocument(deps.db, tenant, consumerId, document);
  if (!row) throw notFound('DDA registration');
  return row;
}

export async function deleteDdaRegistration(
  deps: AppDeps,
  tenant: Tenant,
  consumerId: string,
  rawDocument: string,
  callbackUrl: string,
): Promise<DdaSubscriptionRow> {
  const row = await readDdaRegistration(deps, tenant, consumerId, rawDocument);
  if (row.status === 'deleted') return row;
  try {
    await askDdaDeletion(deps.temporal, { subscriptionId: row.id, callbackUrl }, scopeOf(row));
  } catch (error) {
    if (updateFailure(error)?.type === DDA_PROVIDER_UNAVAILABLE) throw providerUnavailable();
    throw error;
  }
  return (await findDdaSubscription(deps.db, row.id)) ?? row;
}
