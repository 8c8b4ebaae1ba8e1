// Consent intents behind tokens: create, find by token, and the lifecycle's expiry of a pending token.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import type { IntentInput } from '../../schema/http/consents';
import { recordEvent } from '../events/record';
import { prefixedId } from '../ids';
import type { Tenant } from '../consumers/tenant';
import { CONSENT_TOKEN_TTL_SECONDS, consentTokenHint, tokenDigest } from './tokens';

export const consentRow = z.object({
  id: z.string(),
  org_id: z.string(),
  project_id: z.string(),
  environment: z.enum(['live', 'test']),
  token_digest: z.string(),
  token_hint: z.string(),
  agent_id: z.string(),
  surface: z.enum(['hosted', 'partner']),
  // Stored after schema validation at create, so its shape is the validated intent.
  intent: z.custom<IntentInput>((value) => typeof value === 'object' && value !== null),
  callback_url: z.string().nullable(),
  consumer_email_hint: z.string().nullable(),
  status: z.enum(['pending', 'consumed', 'expired']),
  expires_at: z.string(),
  consumed_at: z.string().nullable(),
  expired_at: z.string().nullable(),
  mandate_id: z.string().nullable(),
  created_at: z.string(),
  // Computed at read time: the token's 24 hours have passed even if the lifecycle has not marked it yet.
  lapsed: z.boolean(),
});
export type ConsentRow = z.infer<typeof consentRow>;

const COLUMNS = sql.fragment`id, org_id, project_id, environment, token_digest, token_hint, agent_id, surface, intent, callback_url,
  consumer_email_hint, status, expires_at, consumed_at, expired_at, mandate_id, created_at, expires_at <= now() AS lapsed`;

export const newConsentId = (): string => prefixedId('cst');

export function tenantOf(row: Pick<ConsentRow, 'org_id' | 'project_id' | 'environment'>): Tenant {
  return { orgId: row.org_id, projectId: row.project_id, environment: row.environment };
}

export async function insertConsent(
  tx: CommonQueryMethods,
  tenant: Tenant,
  input: {
    id: string;
    token: string;
    keyId: string | null;
    agentId: string;
    surface: 'hosted' | 'partner';
    intent: IntentInput;
    callbackUrl: string | null;
    consumerEmailHint: string | null;
  },
): Promise<ConsentRow> {
  const row = await tx.one(sql.type(consentRow)`
    INSERT INTO consents (id, org_id, project_id, environment, token_digest, token_hint, key_id, agent_id, surface, intent, callback_url, consumer_email_hint, expires_at)
    VALUES (${input.id}, ${tenant.orgId}, ${tenant.projectId}, ${tenant.environment}, ${tokenDigest(input.token)}, ${consentTokenHint(input.token)},
            ${input.keyId}, ${input.agentId}, ${input.surface}, ${sql.jsonb(input.intent as never)}, ${input.callbackUrl}, ${input.consumerEmailHint},
            now() + make_interval(secs => ${CONSENT_TOKEN_TTL_SECONDS}))
    RETURNING ${COLUMNS}`);
  await recordEvent(tx, tenant, 'consent.created', {
    consent_id: row.id,
    agent_id: row.agent_id,
    surface: row.surface,
    purpose: input.intent.purpose,
    currency: input.intent.currency,
    expires_at: row.expires_at,
  });
  return row;
}

/** By token digest alone: the public page and submit hold only the token, which is their credential. */
export async function findConsentByDigest(
  db: CommonQueryMethods,
  digest: string,
  options: { forUpdate?: boolean } = {},
): Promise<ConsentRow | null> {
  const row = await db.maybeOne(sql.type(consentRow)`
    SELECT ${COLUMNS} FROM consents WHERE token_digest = ${digest} ${options.forUpdate ? sql.fragment`FOR UPDATE` : sql.fragment``}`);
  return row;
}

/** By token within the caller's project: another project's token is simply not found. */
export async function findConsentForTenant(
  db: CommonQueryMethods,
  tenant: Tenant,
  digest: string,
): Promise<ConsentRow | null> {
  const row = await db.maybeOne(sql.type(consentRow)`
    SELECT ${COLUMNS} FROM consents WHERE org_id = ${tenant.orgId} AND project_id = ${tenant.projectId} AND token_digest = ${digest}`);
  return row;
}

export async function markConsentConsumed(
  tx: CommonQueryMethods,
  consentId: string,
  mandateId: string,
): Promise<void> {
  await tx.query(
    sql.unsafe`UPDATE consents SET status = 'consumed', consumed_at = now(), mandate_id = ${mandateId} WHERE id = ${consentId} AND status = 'pending'`,
  );
}

export type ConsentExpiry =
  { outcome: 'expired' } | { outcome: 'consumed'; mandateId: string } | { outcome: 'missing' };

/**
 * Run by the lifecycle when the token's 24-hour timer fires: a still-pending token expires (nothing is
 * created); a token consumed in the meantime reports its mandate so the lifecycle can hold it.
 * The workflow's durable timer is the clock here, so the row is not re-checked against now().
 */
export async function expireConsent(db: CommonQueryMethods, consentId: string): Promise<ConsentExpiry> {
  return db.transaction(async (tx) => {
    const row = await tx.maybeOne(
      sql.type(consentRow)`SELECT ${COLUMNS} FROM consents WHERE id = ${consentId} FOR UPDATE`,
    );
    if (!row) return { outcome: 'missing' };
    if (row.status === 'consumed') return { outcome: 'consumed', mandateId: row.mandate_id! };
    if (row.status === 'pending') {
      await tx.query(
        sql.unsafe`UPDATE consents SET status = 'expired', expired_at = now() WHERE id = ${consentId}`,
      );
      await recordEvent(tx, tenantOf(row), 'consent.expired', {
        consent_id: row.id,
        agent_id: row.agent_id,
        expires_at: row.expires_at,
      });
    }
    return { outcome: 'expired' };
  });
}

export async function findConsentById(db: CommonQueryMethods, id: string): Promise<ConsentRow | null> {
  return db.maybeOne(sql.type(consentRow)`SELECT ${COLUMNS} FROM consents WHERE id = ${id}`);
}
