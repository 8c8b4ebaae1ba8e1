// Fixtures of the consent area, all through HTTP: intents, consents, partner and hosted submits, and a
// consumer with a signed mandate ready for the mandate and contact verification stories.
import type { GatewayClient } from './client';
import type { Gateway, Tenant } from './harness';
import { startGateway } from './harness';

/** The consent stories run on the standard harness; kept as a name so the fixtures read as one set. */
export const startConsentGateway = (): Promise<Gateway> => startGateway();

export const HOLDER_CPF = '52998224725';
export const CNPJ = '11222333000181';

export function intent(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    purpose: 'Weekly groceries',
    cap_minor: 50_000,
    per_tx_cap_minor: 10_000,
    currency: 'BRL',
    mandate_ttl_seconds: 30 * 86_400,
    display_name: 'Mercado Bot',
    ...overrides,
  };
}

export async function createConsent(gw: GatewayClient, key: string, body: Record<string, unknown> = {}) {
  const created = await gw.request('POST', '/v1/consents', {
    key,
    body: { agent_id: 'agent-7', intent: intent(), ...body },
  });
  if (created.status !== 201) throw new Error(`consent creation failed: ${created.status} ${created.text}`);
  return created.body as { token: string; expires_at: string; surface: string; consent_url: string };
}

export function attestation(overrides: Record<string, unknown> = {}) {
  return {
    method: 'partner_session',
    asserted_at: 1_767_225_600,
    reference: 'session-42',
    holder_document: HOLDER_CPF,
    evidence: {
      channel: 'app',
      session_id: 'sess-1',
      ip: '203.0.113.9',
      user_agent: 'PartnerApp/3.1',
      geo: { country: 'BR', city: 'São Paulo' },
    },
    ...overrides,
  };
}

export async function createConsumer(
  gw: GatewayClient,
  key: string,
  displayName = 'Ana Souza',
): Promise<{ id: string }> {
  const created = await gw.request('POST', '/v1/consumers', { key, body: { display_name: displayName } });
  if (created.status !== 201) throw new Error(`consumer creation failed: ${created.status} ${created.text}`);
  return created.body;
}

/** A consumer with an active pix-partner funding source and the mandate its partner consent signed. */
export async function partnerMandate(
  gw: GatewayClient,
  tenant: Tenant,
  options: { intent?: Record<string, unknown>; holderDocument?: string } = {},
) {
  const consumer = await createConsumer(gw, tenant.key);
  const consent = await createConsent(gw, tenant.key, { surface: 'partner', intent: intent(options.intent) });
  const submitted = await gw.request('POST', `/v1/consents/${consent.token}/submit`, {
    key: tenant.key,
    body: {
      consumer_id: consumer.id,
      rail: 'pix-partner',
      provider_token: 'partner-account-token-0001',
      display_label: 'Conta Parceiro ••0001',
      attestation: attestation(
        options.holderDocument === undefined ? {} : { holder_document: options.holderDocument },
      ),
    },
  });
  if (submitted.status !== 201)
    throw new Error(`partner submit failed: ${submitted.status} ${submitted.text}`);
  return { consumer, consent, submitted: submitted.body };
}

/** Polls until `check` holds (real time; the workflow clock is moved only by env.sleep). */
export async function waitFor(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
