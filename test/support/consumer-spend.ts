// Fixtures for consumer spends on real mandates, all through HTTP: a consumer whose partner consent
// signed a mandate, with a receipt secret and a funded sub-account, and spend bodies presenting it.
import { sql } from 'slonik';
import { z } from 'zod';
import { prefixedId } from '../../domain/ids';
import { attestation, createConsent, createConsumer, intent, partnerMandate } from './consents';
import type { GatewayClient } from './client';
import type { Gateway, Tenant } from './harness';
import { fund } from './money';

export interface ReadyConsumer {
  consumerId: string;
  mandateId: string;
  mandate: Record<string, unknown>;
  signature: string;
  walletId: string;
  receiptSecret: string;
}

export async function readyConsumer(
  gw: GatewayClient,
  tenant: Tenant,
  options: { intent?: Record<string, unknown>; fundMinor?: number } = {},
): Promise<ReadyConsumer> {
  const { consumer, submitted } = await partnerMandate(gw, tenant, { intent: options.intent });
  const secret = await gw.request('POST', `/v1/consumers/${consumer.id}/receipt-secret`, { key: tenant.key });
  if (secret.status !== 201) throw new Error(`receipt secret failed: ${secret.status} ${secret.text}`);
  const sub = await gw.request('POST', `/v1/consumers/${consumer.id}/sub-account`, { key: tenant.key });
  if (sub.status !== 201) throw new Error(`sub-account failed: ${sub.status} ${sub.text}`);
  if (options.fundMinor) await fund(gw, tenant, sub.body.id, options.fundMinor);
  return {
    consumerId: consumer.id,
    mandateId: submitted.mandate_id,
    mandate: submitted.mandate,
    signature: submitted.signature,
    walletId: sub.body.id,
    receiptSecret: secret.body.secret,
  };
}

/** A consumer whose partner consent bound a `pix-consent` funding source, with a receipt secret and an empty sub-account. */
export async function consentConsumer(
  gw: Gateway,
  tenant: Tenant,
  over: Record<string, unknown> = {},
): Promise<ReadyConsumer & { fundingSourceId: string }> {
  const consumer = await createConsumer(gw, tenant.key);
  const consent = await createConsent(gw, tenant.key, { surface: 'partner', intent: intent(over) });
  const submitted = await gw.request('POST', `/v1/consents/${consent.token}/submit`, {
    key: tenant.key,
    body: {
      consumer_id: consumer.id,
      rail: 'pix-consent',
      display_label: 'Pix consent',
      attestation: attestation(),
    },
  });
  if (submitted.status !== 201) throw new Error(`submit failed: ${submitted.status} ${submitted.text}`);
  const secret = await gw.request('POST', `/v1/consumers/${consumer.id}/receipt-secret`, { key: tenant.key });
  const sub = await gw.request('POST', `/v1/consumers/${consumer.id}/sub-account`, { key: tenant.key });
  const source = await gw.db.oneFirst(sql.type(z.object({ id: z.string() }))`
    SELECT id FROM consumer_funding_sources WHERE consumer_id = ${consumer.id} AND rail = 'pix-consent'`);
  return {
    consumerId: consumer.id,
    mandateId: submitted.body.mandate_id,
    mandate: submitted.body.mandate,
    signature: submitted.body.signature,
    walletId: sub.body.id,
    receiptSecret: secret.body.secret,
    fundingSourceId: source,
  };
}

export const newAttempt = (): string => prefixedId('att');

/** A Pix spend presenting the consumer's signed mandate; the intent's purpose and agent by default. */
export function pixSpend(c: ReadyConsumer, over: Record<string, unknown> = {}) {
  return {
    signature: c.signature,
    agent_id: 'agent-7',
    amount_minor: 2_500,
    payee: 'loja@example.com',
    purpose: 'Weekly groceries',
    mandate: c.mandate,
    attempt_id: newAttempt(),
    ...over,
  };
}

export const TED_DESTINATION = 'ted:60701190:1234:00098765';

export function tedSpend(c: ReadyConsumer, over: Record<string, unknown> = {}) {
  return {
    ...pixSpend(c),
    payee: TED_DESTINATION,
    ted: {
      bank: '60701190',
      branch: '1234',
      account: '00098765',
      tax_id: '52998224725',
      name: 'Maria',
      account_type: 'CACC',
      person_type: 'PF',
    },
    ...over,
  };
}
