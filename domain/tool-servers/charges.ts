// A paid tool call's ledger steps, each one short transaction that finds its own earlier write on retry:
// authorize (the policy gate with the tool's name, price and currency, then a hold on the caller's wallet for
// the price the call was authorized at), settle (the debit of the hold and, in the same transaction, the
// tenant's share and the platform fee credited, summing to the price), release (the hold returned), and
// uncertain (the hold kept: the upstream's answer never came, so nothing is guessed; charge-resolution.ts).
import { sql, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import type { DatabasePool, DatabaseTransactionConnection } from '../../runtime/database';
import { ApiError } from '../errors';
import type { EventScope } from '../events/record';
import { withLedgerErrors } from '../ledger/conflicts';
import { LOCK_TIMEOUT, lockSlot, postLocked, type LockedHold } from '../ledger/post';
import { balanceRow, type BalanceRow } from '../wallets/wallets';
import { createApproval } from '../approvals/approvals';
import {
  agentLock,
  decideUncounted,
  evaluationInsert,
  linkEvaluationToApproval,
  runGate,
} from '../policies/gate';
import type { CallContext } from '../policies/evaluate';
import { listPolicies, toRule } from '../policies/policies';
import { effectiveSettings } from '../tenancy/settings';
import {
  TOOL_CHARGE_KIND,
  type ChargeAuthorization,
  type ChargeSplit,
  type ToolChargeInput,
  type ToolChargeResolution,
} from '../../contracts/tool-charge';
import { recordToolChargeResolution } from './charge-resolution';
import { splitPrice } from './money';
import { sealedOf, sealedRow, type SealedUpstreamAuth } from './upstream-auth';

const callerScope = (input: ToolChargeInput): EventScope => ({
  orgId: input.orgId,
  projectId: input.projectId,
  environment: input.environment,
});
const tenantScope = (input: ToolChargeInput): EventScope => ({
  orgId: input.serverOrgId,
  projectId: input.serverProjectId,
  environment: input.environment,
});
const attemptRef = (input: ToolChargeInput) =>
  input.approvalId ? `tool-charge:${input.attemptId}#${input.approvalId}` : `tool-charge:${input.attemptId}`;

const priorRow = z.object({
  decision: z.enum(['allow', 'deny']),
  denial_reason: z.string().nullable(),
  rule_id: z.string().nullable(),
  rule_name: z.string().nullable(),
  rule_type: z.string().nullable(),
  approval_id: z.string().nullable(),
});
const chargeRow = z.object({
  status: z.enum(['held', 'debited', 'released', 'uncertain', 'refused']),
  tenant_share_minor: z.bigint().nullable(),
  fee_minor: z.bigint().nullable(),
  debit_entry_id: z.bigint().nullable(),
});
const holdRow = z.object({ id: z.string(), status: z.enum(['open', 'debited', 'released']) });

const walletAndPrior = z.object({
  status: z.string(),
  lock_timeout: z.string(),
  agent_lock: z.string(),
  prior: z.unknown().nullable(),
});

/**
 * Rebuilds the answer of a transaction that committed before its activity could report it, from its
 * evaluation row (read with the wallet).
 */
async function prior(
  tx: DatabaseTransactionConnection,
  input: ToolChargeInput,
  row: z.infer<typeof priorRow>,
): Promise<ChargeAuthorization> {
  const denial = {
    reason: row.denial_reason ?? '',
    ruleType: row.rule_type ?? '',
    ruleId: row.rule_id ?? '',
    ruleName: row.rule_name ?? '',
  };
  if (row.decision === 'deny' && row.approval_id) {
    const approval = await tx.one(sql.type(z.object({ id: z.string(), expires_at: z.string() }))`
      SELECT id, expires_at FROM approvals WHERE org_id = ${input.orgId} AND id = ${row.approval_id}`);
    return { kind: 'requires_approval', ...denial, approvalId: approval.id, expiresAt: approval.expires_at };
  }
  if (row.decision === 'deny') return { kind: 'denied', ...denial };
  const hold = await tx.maybeOne(sql.type(holdRow)`
    SELECT id, status FROM wallet_holds WHERE wallet_id = ${input.walletId} AND attempt_id = ${input.attemptId}`);
  return hold ? { kind: 'held', holdId: hold.id } : { kind: 'insufficient_funds', available: 'unknown' };
}

export async function authorizeToolCharge(
  db: DatabasePool,
  input: ToolChargeInput,
): Promise<ChargeAuthorization> {
  const scope = callerScope(input);
  const price = BigInt(input.priceMinor);
  return withLedgerErrors(() =>
    db.transaction(async (tx) => {
      // One statement sets the lock wait, takes the agent's policy lock (runGate's), locks the wallet (shared)
      // and reads an evaluation this call's step already wrote, saving three round trips.
      const wallet = await tx.maybeOne(sql.type(walletAndPrior)`
        SELECT w.status, set_config('lock_timeout', ${LOCK_TIMEOUT}, true) AS lock_timeout,
          ${agentLock(input.projectId, input.agentId)}::text AS agent_lock,
          (SELECT to_jsonb(p) FROM (
            SELECT decision, denial_reason, rule_id, rule_name, rule_type, approval_id FROM policy_evaluations
            WHERE org_id = ${input.orgId} AND attempt_ref = ${attemptRef(input)}) p) AS prior
        FROM wallets w WHERE w.org_id = ${input.orgId} AND w.project_id = ${input.projectId} AND w.id = ${input.walletId} FOR SHARE OF w`);
      if (!wallet) throw new ApiError(404, 'not_found', 'Wallet not found');
      if (wallet.prior) return prior(tx, input, priorRow.parse(wallet.prior));
      if (wallet.status !== 'active') return { kind: 'wallet_not_active', status: wallet.status };
      const ctx: CallContext = {
        agentId: input.agentId,
        toolName: input.toolName,
        amountMinor: price,
        currency: input.currency,
        now: new Date(),
        approved: Boolean(input.approvalId),
      };
      // A call no usage counter or hold decides is decided from the rules as read: its evaluation row then
      // rides the statement that writes the charge (or is written alone when nothing is held).
      const rules = (await listPolicies(tx, input.orgId, input.projectId)).map(toRule);
      const quick = decideUncounted(rules, ctx);
      const evaluation = quick
        ? evaluationInsert(input.orgId, input.projectId, ctx, quick, attemptRef(input)).insert
        : null;
      const gate = quick
        ? null
        : await runGate(tx, input.orgId, input.projectId, ctx, {
            attemptRef: attemptRef(input),
            agentLocked: true,
            rules,
          });
      const decision = quick ?? gate!.decision;
      /** The evaluation row alone, when no charge is written beside it. */
      const evaluated = async () => {
        if (evaluation) await tx.query(sql.unsafe`${evaluation}`);
      };
      if (decision.decision === 'hold') {
        // Held for a person: the approval carries the exact call (at its price) to replay once approved.
        const stored = await tx.oneFirst(sql.type(z.object({ settings: z.record(z.unknown()) }))`
          SELECT settings FROM projects WHERE org_id = ${input.orgId} AND id = ${input.projectId}`);
        const approval = await createApproval(tx, scope, {
          agentId: input.agentId,
          sessionId: null,
          ruleId: decision.rule.id,
          ruleName: decision.rule.name,
          toolName: input.toolName,
          toolInput: { ...input.arguments, price_minor: input.priceMinor, currency: input.currency },
          kind: TOOL_CHARGE_KIND,
          payload: input,
          originRef: input.attemptId,
          ttlSeconds: Number(effectiveSettings(stored).approval_ttl_seconds),
        });
        await linkEvaluationToApproval(tx, input.orgId, gate!.evaluationId, approval.id);
        return {
          kind: 'requires_approval',
          reason: decision.reason,
          ruleType: decision.rule.type,
          ruleId: decision.rule.id,
          ruleName: decision.rule.name,
          approvalId: approval.id,
          expiresAt: approval.expires_at,
        };
      }
      if (decision.decision !== 'allow') {
        await evaluated();
        return {
          kind: 'denied',
          reason: decision.reason,
          ruleType: decision.rule.type,
          ruleId: decision.rule.id,
          ruleName: decision.rule.name,
        };
      }
      const slot = await lockSlot(tx, scope, input.walletId, input.currency);
      if (slot.available_minor < price) {
        await evaluated();
        return { kind: 'insufficient_funds', available: slot.available_minor.toString() };
      }
      const held = await postLocked(
        tx,
        scope,
        {
          walletId: input.walletId,
          currency: input.currency,
          kind: 'hold',
          amount: price,
          attemptId: input.attemptId,
          agentId: input.agentId,
          metadata: { tool: input.toolName, tool_server_id: input.serverId },
        },
        slot,
        // No evaluation of this attempt was found above, so it holds nothing yet (the hold's unique
        // attempt index refuses a second one).
        { hold: null },
      );
      await tx.query(sql.unsafe`
        ${evaluation ? sql.fragment`WITH evaluated AS (${evaluation})` : sql.fragment``}
        INSERT INTO tool_server_charges (org_id, attempt_id, project_id, server_id, tool_name, wallet_id, currency, price_minor, platform_fee_bps)
        VALUES (${input.orgId}, ${input.attemptId}, ${input.projectId}, ${input.serverId}, ${input.toolName}, ${input.walletId},
                ${input.currency}, ${price.toString()}, ${input.platformFeeBps})
        ON CONFLICT (org_id, attempt_id) DO NOTHING`);
      return { kind: 'held', holdId: held.entry.hold_id! };
    }),
  );
}

// The server's columns are null when it no longer exists (the statement answers a row either way).
const begunRow = z.object({
  begun: z.boolean(),
  upstream_url: z.string().nullable(),
  environment: z.enum(['live', 'test']).nullable(),
  server: sealedRow.nullable(),
});

/** Where a begun call goes: the server's URL and environment, and its credential as read with them. */
export interface BegunCall {
  upstreamUrl: string;
  environment: 'live' | 'test';
  sealed: SealedUpstreamAuth | null;
}

/**
 * Commits the mark that the call's upstream tools/call begins, before it is made, reading where it goes in
 * the same statement. False when the mark was set already: a run before this one began the call and may have
 * made it, so it is looked up, never made again. Null for the server when it no longer exists (calls in
 * flight finish; this one is refused).
 */
export async function beginToolCall(
  db: DatabasePool,
  input: ToolChargeInput,
): Promise<false | { server: BegunCall | null }> {
  const row = await db.one(sql.type(begunRow)`
    WITH begun AS (
      UPDATE tool_server_charges SET send_begun_at = now()
      WHERE org_id = ${input.orgId} AND attempt_id = ${input.attemptId} AND status = 'held' AND send_begun_at IS NULL
      RETURNING 1)
    SELECT EXISTS (SELECT 1 FROM begun) AS begun, s.upstream_url, s.environment,
      CASE WHEN s.id IS NOT NULL THEN jsonb_build_object('auth_header', s.auth_header,
        'auth_ciphertext', s.auth_ciphertext, 'auth_wrapped_key', s.auth_wrapped_key, 'auth_key_ref', s.auth_key_ref,
        'org_id', s.org_id, 'project_id', s.project_id) END AS server
    FROM (SELECT 1) one LEFT JOIN tool_servers s ON s.id = ${input.serverId}`);
  if (!row.begun) return false;
  if (!row.upstream_url || !row.environment || !row.server) return { server: null };
  return {
    server: { upstreamUrl: row.upstream_url, environment: row.environment, sealed: sealedOf(row.server) },
  };
}

const lockedCharge = chargeRow.extend({
  hold_id: z.string(),
  hold_currency: z.string(),
  hold_amount_minor: z.bigint(),
  hold_status: z.enum(['open', 'debited', 'released']),
  hold_resolved_entry_id: z.bigint().nullable(),
});

/**
 * The lock wait and the caller's slot, locked, in one statement: the slot exists, since the call's hold was
 * posted to it. The first lock of the fixed order (the caller's slot, then the charge and its hold, then the
 * payout and fee slots).
 */
async function lockCallerSlot(
  tx: DatabaseTransactionConnection,
  input: ToolChargeInput,
): Promise<BalanceRow | null> {
  const slot = await tx.maybeOne(sql.type(balanceRow.extend({ lock_timeout: z.string() }))`
    SELECT set_config('lock_timeout', ${LOCK_TIMEOUT}, true) AS lock_timeout, wallet_id, currency, balance_minor,
      available_minor, updated_at
    FROM wallet_balances WHERE wallet_id = ${input.walletId} AND currency = ${input.currency} FOR UPDATE`);
  if (!slot) return null;
  const { lock_timeout: _set, ...balance } = slot;
  return balance;
}

const holdsNothing = () =>
  new ApiError(409, 'ledger_conflict', 'The call holds nothing', { reason: 'hold_not_found' });

/**
 * The charge and its hold, both locked in one statement (they are written in one transaction: a charge
 * always has its hold), the hold as postLocked takes it; null when the call holds nothing.
 */
async function lockCharge(tx: DatabaseTransactionConnection, input: ToolChargeInput) {
  const row = await tx.maybeOne(sql.type(lockedCharge)`
    SELECT c.status, c.tenant_share_minor, c.fee_minor, c.debit_entry_id, h.id AS hold_id,
      h.currency AS hold_currency, h.amount_minor AS hold_amount_minor, h.status AS hold_status,
      h.resolved_entry_id AS hold_resolved_entry_id
    FROM tool_server_charges c JOIN wallet_holds h ON h.wallet_id = ${input.walletId} AND h.attempt_id = ${input.attemptId}
    WHERE c.org_id = ${input.orgId} AND c.attempt_id = ${input.attemptId} FOR UPDATE OF c, h`);
  if (!row) return null;
  const hold: LockedHold = {
    id: row.hold_id,
    currency: row.hold_currency,
    amount_minor: row.hold_amount_minor,
    status: row.hold_status,
  };
  return { ...row, hold };
}

/**
 * The tenant's slots to credit, locked in the fixed order (the payout slot, then the fee slot: rows are locked
 * as ORDER BY sorts them), with the charge marked debited (`debited`) in the same statement. Null, locking
 * and writing nothing, when a slot is not made yet (its first credit): the caller then goes slot by slot.
 */
async function lockTenantSlots(
  tx: DatabaseTransactionConnection,
  input: ToolChargeInput,
  walletIds: string[],
  debited: FragmentSqlToken,
): Promise<Map<string, BalanceRow> | null> {
  const wallets = sql.array(walletIds, 'text');
  const rows = await tx.any(sql.type(balanceRow)`
    WITH made AS (
      SELECT count(*) = ${new Set(walletIds).size} AS all_made FROM wallet_balances
      WHERE currency = ${input.currency} AND wallet_id = ANY(${wallets})),
    debited AS (${debited} AND (SELECT all_made FROM made) RETURNING 1)
    SELECT b.wallet_id, b.currency, b.balance_minor, b.available_minor, b.updated_at FROM wallet_balances b
    WHERE b.currency = ${input.currency} AND b.wallet_id = ANY(${wallets}) AND EXISTS (SELECT 1 FROM debited)
    ORDER BY b.wallet_id = ${input.payoutWalletId} DESC FOR UPDATE OF b`);
  if (rows.length === 0) return null;
  return new Map(rows.map((row) => [row.wallet_id, row]));
}

/**
 * Debits the hold and credits the tenant's share and the platform fee, all in one transaction (with the
 * resolution of a call whose answer never came, when that is what settles it).
 */
export async function settleToolCharge(
  db: DatabasePool,
  input: ToolChargeInput,
  resolution: ToolChargeResolution | null = null,
): Promise<ChargeSplit> {
  const price = BigInt(input.priceMinor);
  return withLedgerErrors(() =>
    db.transaction(async (tx) => {
      // Lock order: the caller's slot, then the payout slot, then the fee slot (the sweep takes only the last).
      const callerSlot = await lockCallerSlot(tx, input);
      const charge = callerSlot && (await lockCharge(tx, input));
      if (!callerSlot || !charge) throw holdsNothing();
      if (charge.status === 'debited')
        return {
          debitId: charge.debit_entry_id!.toString(),
          tenantShareMinor: charge.tenant_share_minor!.toString(),
          feeMinor: charge.fee_minor!.toString(),
        };
      if (charge.status !== 'held' && charge.status !== 'uncertain')
        throw new ApiError(409, 'ledger_conflict', `The charge was already ${charge.status}`, {
          reason: 'hold_already_resolved',
        });
      const ref = `tool-charge:${input.orgId}/${input.attemptId}`;
      const debit = await postLocked(
        tx,
        callerScope(input),
        {
          walletId: input.walletId,
          currency: input.currency,
          kind: 'debit',
          amount: price,
          attemptId: input.attemptId,
          externalRef: ref,
          metadata: { tool: input.toolName, tool_server_id: input.serverId },
        },
        callerSlot,
        { hold: charge.hold },
      );
      const split = splitPrice(price, input.platformFeeBps);
      const credits = [
        { walletId: input.payoutWalletId, amount: split.tenantShareMinor, role: 'tenant_share' },
        { walletId: input.feeWalletId, amount: split.feeMinor, role: 'platform_fee' },
      ].filter((c) => c.amount > 0n);
      const debited = sql.fragment`
        UPDATE tool_server_charges SET status = 'debited', tenant_share_minor = ${split.tenantShareMinor.toString()},
          fee_minor = ${split.feeMinor.toString()}, debit_entry_id = ${debit.entry.id.toString()}, settled_at = now()
        WHERE org_id = ${input.orgId} AND attempt_id = ${input.attemptId}`;
      const slots = await lockTenantSlots(
        tx,
        input,
        credits.map((c) => c.walletId),
        debited,
      );
      for (const { walletId, amount, role } of credits)
        await postLocked(
          tx,
          tenantScope(input),
          {
            walletId,
            currency: input.currency,
            kind: 'fund',
            amount,
            externalRef: `${ref}:${role}`,
            metadata: { role, tool: input.toolName, caller_org_id: input.orgId, attempt_id: input.attemptId },
          },
          slots?.get(walletId) ?? (await lockSlot(tx, tenantScope(input), walletId, input.currency)),
        );
      if (!slots) await tx.query(sql.unsafe`${debited}`);
      if (resolution)
        await recordToolChargeResolution(tx, input, resolution, {
          status: 'completed',
          tenantShareMinor: split.tenantShareMinor.toString(),
          feeMinor: split.feeMinor.toString(),
        });
      return {
        debitId: debit.entry.id.toString(),
        tenantShareMinor: split.tenantShareMinor.toString(),
        feeMinor: split.feeMinor.toString(),
      };
    }),
  );
}

/** Returns the whole hold: the upstream failed, answered too late, or was resolved as failed. */
export async function releaseToolCharge(
  db: DatabasePool,
  input: ToolChargeInput,
  resolution: ToolChargeResolution | null = null,
): Promise<string> {
  return (await returnHold(db, input, resolution, false))!;
}

/**
 * Frees what a call that broke before its upstream call may hold: its hold, if the authorization wrote one
 * (it may have committed before its activity's answer was lost). Null when it held nothing.
 */
export function releaseToolChargeIfHeld(db: DatabasePool, input: ToolChargeInput): Promise<string | null> {
  return returnHold(db, input, null, true);
}

async function returnHold(
  db: DatabasePool,
  input: ToolChargeInput,
  resolution: ToolChargeResolution | null,
  ifHeld: boolean,
): Promise<string | null> {
  return withLedgerErrors(() =>
    db.transaction(async (tx) => {
      // The hold and the charge row are written in one transaction: no row, nothing held (and no slot, when
      // the authorization broke before its first hold on the wallet).
      const slot = await lockCallerSlot(tx, input);
      const charge = slot && (await lockCharge(tx, input));
      if (!slot || !charge) {
        if (ifHeld) return null;
        throw holdsNothing();
      }
      if (charge.status === 'released' && charge.hold_resolved_entry_id)
        return charge.hold_resolved_entry_id.toString();
      if (charge.status !== 'held' && charge.status !== 'uncertain')
        throw new ApiError(409, 'ledger_conflict', `The charge was already ${charge.status}`, {
          reason: 'hold_already_resolved',
        });
      const posted = await postLocked(
        tx,
        callerScope(input),
        {
          walletId: input.walletId,
          currency: input.currency,
          kind: 'release',
          amount: BigInt(input.priceMinor),
          attemptId: input.attemptId,
          metadata: { tool: input.toolName, tool_server_id: input.serverId },
        },
        slot,
        { hold: charge.hold },
      );
      await tx.query(sql.unsafe`
        UPDATE tool_server_charges SET status = 'released', settled_at = now()
        WHERE org_id = ${input.orgId} AND attempt_id = ${input.attemptId}`);
      if (resolution) await recordToolChargeResolution(tx, input, resolution, { status: 'failed' });
      return posted.entry.id.toString();
    }),
  );
}
