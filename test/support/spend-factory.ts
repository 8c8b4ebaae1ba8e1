// Test factories for consumer spends: a session row (the sessions area has no routes yet), and spend
// bodies for Pix and TED with a real-shaped mandate and signature.
import { sql } from 'slonik';
import { prefixedId } from '../../domain/ids';
import { buildBrCode } from '../../domain/pix/brcode';
import type { Gateway, Tenant } from './harness';

export async function insertSession(gw: Gateway, tenant: Tenant): Promise<string> {
  const id = prefixedId('ses');
  await gw.db.query(
    sql.unsafe`INSERT INTO sessions (id, org_id, project_id, user_id) VALUES (${id}, ${tenant.orgId}, ${tenant.projectId}, 'usr_test')`,
  );
  return id;
}

export const mandateDoc = {
  version: 1,
  id: 'mdt_presented',
  revision: 1,
  nonce: 'ab'.repeat(16),
  agent_id: 'agent_1',
  currency: 'BRL',
  purpose: 'groceries',
};

export function pixBody(over: Record<string, unknown> = {}) {
  return {
    signature: 'a'.repeat(64),
    agent_id: 'agent_1',
    amount_minor: 1050,
    payee: '+5511987654321',
    purpose: 'groceries',
    mandate: mandateDoc,
    ...over,
  };
}

export function tedBody(over: Record<string, unknown> = {}) {
  return {
    ...pixBody(),
    payee: 'ted:60701190:1234:00098765',
    attempt_id: prefixedId('att'),
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

export const brCode = (amountMinor?: bigint) =>
  buildBrCode({
    key: 'loja@example.com',
    amountMinor,
    merchantName: 'Loja',
    merchantCity: 'SAO PAULO',
    txid: 'PED1',
  });
