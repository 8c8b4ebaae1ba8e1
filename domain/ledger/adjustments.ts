// Who may post what by hand. Holds, releases and debits are steps of an attempt (the engine writes them; the
// database refuses any other owner, 0880). Balance is created only by real arrivals or by an operator: in a
// test project a key may post `fund` as a sandbox top-up; in a live project no key posts at all (no OAuth
// token carries the route's scope); `fund`, `reconcile`, `reverse` and `fee` are otherwise adjustments of a
// named operator with a reason, recorded beside the entry and published as `ledger.adjustment_posted`.
import { sql } from 'slonik';
import type { DatabasePool } from '../../runtime/database';
import type { Environment } from '../tenancy/api-key-format';
import { ApiError } from '../errors';
import { recordEvent, type EventScope } from '../events/record';
import { withLedgerErrors } from './conflicts';
import type { EntryKind } from '../../contracts/ledger-entry-kinds';
import { recordRefusal } from './post-entry';
import {
  ledgerTransactionSettings,
  lockActiveWallet,
  lockSlot,
  postLocked,
  type PostInput,
  type PostResult,
} from './post';

const ENGINE_KINDS: ReadonlySet<EntryKind> = new Set(['hold', 'release', 'debit']);

export interface PostingCredential {
  /** `service` is the operator credential; API keys and OAuth tokens are the tenant's. */
  kind: 'api_key' | 'oauth' | 'service';
  environment: Environment;
  /** x-service-user on a service call. */
  userId: string | null;
}

/** The refusal of a hand-made post by this credential, or null when it may be posted. Nothing is written either way. */
export function postingRefusal(
  credential: PostingCredential,
  kind: EntryKind,
  reason: string | undefined,
): ApiError | null {
  if (ENGINE_KINDS.has(kind))
    return new ApiError(
      403,
      'engine_owned_entry',
      `A ${kind} entry is written only by the attempt engine, as a step of the attempt that owns its hold`,
      { kind },
    );
  if (credential.kind === 'service') {
    if (!credential.userId)
      return new ApiError(
        400,
        'user_id_required',
        'Name the operator making the adjustment in the x-service-user header',
      );
    if (!reason)
      return new ApiError(400, 'invalid_body', 'An operator adjustment needs a reason', {
        issues: [{ path: '/reason', message: "must have required property 'reason'", keyword: 'required' }],
      });
    return null;
  }
  if (credential.environment === 'live')
    return new ApiError(
      403,
      'live_ledger_locked',
      'In a live project no API key posts ledger entries: balance comes from top-ups and deposits, or from an operator adjustment',
      { kind, environment: 'live' },
    );
  if (kind !== 'fund')
    return new ApiError(
      403,
      'operator_adjustment_required',
      `A ${kind} entry is an operator adjustment (service credential, x-service-user and a reason); a test key may post only fund`,
      { kind },
    );
  return null;
}

/** An operator's adjustment: the entry, who made it and why, and its event, in one transaction. */
export async function postAdjustment(
  db: DatabasePool,
  scope: EventScope,
  input: PostInput,
  operator: { actor: string; reason: string },
): Promise<PostResult> {
  try {
    return await adjust(db, scope, input, operator);
  } catch (error) {
    // A refused adjustment wrote nothing, its refusal event included; it is recorded as any refused post is.
    await recordRefusal(db, scope, input, error);
    throw error;
  }
}

function adjust(
  db: DatabasePool,
  scope: EventScope,
  input: PostInput,
  operator: { actor: string; reason: string },
): Promise<PostResult> {
  return withLedgerErrors(() =>
    db.transaction(async (tx) => {
      await ledgerTransactionSettings(tx);
      await lockActiveWallet(tx, scope, input.walletId);
      const slot = await lockSlot(tx, scope, input.walletId, input.currency);
      const posted = await postLocked(tx, scope, input, slot);
      await tx.query(sql.unsafe`
        INSERT INTO ledger_adjustments (entry_id, org_id, project_id, wallet_id, kind, amount_minor, actor, reason)
        VALUES (${posted.entry.id.toString()}, ${scope.orgId}, ${scope.projectId}, ${input.walletId}, ${input.kind},
                ${posted.entry.amount_minor.toString()}, ${operator.actor}, ${operator.reason})`);
      await recordEvent(tx, scope, 'ledger.adjustment_posted', {
        entry_id: posted.entry.id,
        wallet_id: input.walletId,
        currency: input.currency,
        kind: input.kind,
        amount_minor: posted.entry.amount_minor,
        actor: operator.actor,
        reason: operator.reason,
        balance_minor: posted.balance.balance_minor,
        available_minor: posted.balance.available_minor,
      });
      return posted;
    }),
  );
}
