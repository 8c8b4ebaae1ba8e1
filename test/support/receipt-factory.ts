// Test factories for receipts: a consumer row in a tenant's project, and a receipt sealed through the
// same domain function a settling spend calls, for tests of the receipt routes on their own.
import { sql } from 'slonik';
import { prefixedId } from '../../domain/ids';
import { sealReceipt, type SealInput } from '../../domain/receipts/receipts';
import type { Gateway, Tenant } from './harness';

export async function insertConsumer(gw: Gateway, tenant: Tenant, displayName = 'Maria'): Promise<string> {
  const id = prefixedId('cns');
  await gw.db.query(
    sql.unsafe`INSERT INTO consumers (id, org_id, project_id, display_name) VALUES (${id}, ${tenant.orgId}, ${tenant.projectId}, ${displayName})`,
  );
  return id;
}

export async function sealTestReceipt(
  gw: Gateway,
  tenant: Tenant,
  consumerId: string,
  over: Partial<SealInput> = {},
) {
  const attemptId = over.attemptId ?? prefixedId('att');
  const input: SealInput = {
    consumerId,
    attemptId,
    mandate: {
      id: 'mdt_test',
      nonce: 'n'.repeat(32),
      scope: `${tenant.orgId}/${tenant.projectId}/${consumerId}`,
      currency: 'BRL',
      sig: 'a'.repeat(64),
    },
    quote: null,
    payment: {
      rail: 'pix',
      amount_minor: '1050',
      amount_authorized: '1050',
      amount_charged: '1050',
      amount_refunded: '0',
      metering: { basis: 'fixed', units: 1, unit_price: '1050' },
      sandbox: true,
      attempt_id: attemptId,
      money_moved: true,
      at: new Date().toISOString(),
      payee: '+5511987654321',
      provider_payment_id: 'pixpay_1',
      end_to_end_id: null,
    },
    actor: null,
    approval: null,
    exceptions: [],
    ...over,
  };
  return gw.db.transaction((tx) =>
    sealReceipt(
      tx,
      gw.config.encryptionKeys,
      { orgId: tenant.orgId, projectId: tenant.projectId, environment: 'test' },
      input,
    ),
  );
}
