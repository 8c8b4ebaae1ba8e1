// Fixtures of the DDA stories, all through HTTP: a fresh valid CPF per story, a consumer whose partner
// account attests the document and whose contact check verified it, and the registration calls.
import { sql } from 'slonik';
import { z } from 'zod';
import { withCheckDigits } from '../../domain/consumers/document-number';
import type { DevSenderMock } from '../../providers/mocks/otp-dev';
import { partnerMandate, waitFor } from './consents';
import type { Gateway, Tenant } from './harness';

let serial = 0;
/** A fresh valid CPF per story, so the provider's per-document scripts never cross. */
export const newCpf = () =>
  withCheckDigits(String(310_000_000 + ++serial * 7_919 + Math.floor(Math.random() * 1000)));

export async function verifiedConsumer(
  gw: Gateway,
  tenant: Tenant,
  options: { document: string; allowlist?: string[]; verify?: boolean },
): Promise<string> {
  const intent = options.allowlist ? { dda_allowlist: options.allowlist } : {};
  const { consumer } = await partnerMandate(gw, tenant, { intent, holderDocument: options.document });
  if (options.verify === false) return consumer.id;
  const email = `dda.${++serial}.${Date.now()}@example.com`;
  const started = await gw.request('POST', `/v1/consumers/${consumer.id}/contact-verifications`, {
    key: tenant.key,
    body: { channel: 'email', target: email },
  });
  if (started.status !== 201) throw new Error(`verification start failed: ${started.text}`);
  const code = (gw.mocks.otp_dev as DevSenderMock).latestCode(email)!;
  const verified = await gw.request(
    'POST',
    `/v1/consumers/${consumer.id}/contact-verifications/${started.body.id}/verify`,
    { key: tenant.key, body: { code } },
  );
  if (verified.status !== 200) throw new Error(`verify failed: ${verified.text}`);
  return consumer.id;
}

export const register = (gw: Gateway, tenant: Tenant, consumerId: string, body: Record<string, unknown>) =>
  gw.request('POST', `/v1/consumers/${consumerId}/dda/subscriptions`, { key: tenant.key, body });
export const read = (gw: Gateway, tenant: Tenant, consumerId: string, document: string) =>
  gw.request('GET', `/v1/consumers/${consumerId}/dda/subscriptions/${encodeURIComponent(document)}`, {
    key: tenant.key,
  });
export const remove = (gw: Gateway, tenant: Tenant, consumerId: string, document: string) =>
  gw.request('DELETE', `/v1/consumers/${consumerId}/dda/subscriptions/${document}`, { key: tenant.key });
export const rowCount = (gw: Gateway, consumerId: string) =>
  gw.db.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM dda_subscriptions WHERE consumer_id = ${consumerId}`);
export const eventsOf = (gw: Gateway, tenant: Tenant, type: string) =>
  gw.db.any(sql.type(z.object({ data: z.record(z.unknown()) }))`
    SELECT data FROM events WHERE org_id = ${tenant.orgId} AND type = ${type} ORDER BY id`);

export async function statusBecomes(
  gw: Gateway,
  tenant: Tenant,
  consumerId: string,
  document: string,
  status: string,
) {
  await waitFor(async () => (await read(gw, tenant, consumerId, document)).body.status === status);
}
