// A buyer's payment of a link: the use is reserved in the same row update that checks every limit
// (active, not void or paid, not expired, under max_uses, one_time), so concurrent buyers can never
// take more uses than the link has; the payment then settles into a counted use or releases its
// reservation, each exactly once because the payment's status only ever leaves `pending` once.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabasePool } from '../../runtime/database';
import { ApiError } from '../errors';
import { recordEvent } from '../events/record';
import { prefixedId } from '../ids';
import type { KeyRing } from '../crypto/secret-box';
import type { Rail } from './accepts';
import { linkPaymentRow, type LinkPaymentRow } from './payment-row';
import { sealLinkReceipt } from './receipts';
import { findLinkBySlug, paymentLinkNotFound, type LinkRow } from './links';

const COLUMNS = sql.fragment`id, link_id, org_id, project_id, environment, rail, currency, amount_minor, pay_to, status, rail_ref, pay_code, provider_ref, created_at, settled_at`;

/** How long a buyer has to pay a charge before the reserved use returns to the link. */
export const LINK_CHARGE_SECONDS = 900;

export type NotPayableReason =
  'paused' | 'void' | 'paid' | 'expired' | 'max_uses_reached' | 'rail_not_accepted';
export const notPayable = (reason: NotPayableReason) =>
  new ApiError(409, 'payment_link_not_payable', `This payment link cannot be paid now (${reason})`, {
    reason,
  });

/** Why the link cannot be paid now as far as its row shows (a cap being raced is settled by the reservation). */
export function notPayableNow(link: LinkRow): NotPayableReason | null {
  if (link.status === 'void' || link.status === 'paid' || link.status === 'expired') return link.status;
  if (!link.active) return 'paused';
  if (link.expires_at !== null && Date.parse(link.expires_at) <= Date.now()) return 'expired';
  if (link.max_uses !== null && link.use_count >= link.max_uses) return 'max_uses_reached';
  return null;
}

/** A Pix txid: 26..35 alphanumerics, derived from the payment so a retried charge names the same one. */
export const pixTxidOf = (paymentId: string): string =>
  paymentId
    .replace(/[^0-9A-Za-z]/g, '')
    .padEnd(26, '0')
    .slice(0, 35);

/**
 * Reserves one use of the link by slug and opens a pending payment over `rail`, or says why not.
 * The reservation and the cap check are one UPDATE: PostgreSQL re-checks the WHERE clause against the
 * row's newest version after waiting for a concurrent buyer's lock, so the cap holds under any race.
 */
export async function reserveLinkPayment(
  db: DatabasePool,
  slug: string,
  rail: Rail,
  /** Written in the reservation's transaction (the x402 authorization); a throw reserves nothing. */
  attach?: (tx: CommonQueryMethods, payment: LinkPaymentRow) => Promise<void>,
): Promise<LinkPaymentRow> {
  const link = await findLinkBySlug(db, slug);
  if (!link) throw paymentLinkNotFound();
  const accept = link.accepts.find((candidate) => candidate.rail === rail);
  if (!accept) throw notPayable('rail_not_accepted');
  return db.transaction(async (tx) => {
    const reserved = await tx.maybeOne(sql.type(z.object({ id: z.string() }))`
      UPDATE payment_links SET reserved_count = reserved_count + 1, updated_at = now()
      WHERE id = ${link.id} AND deleted_at IS NULL AND active AND status = 'active'
        AND (expires_at IS NULL OR expires_at > now())
        AND (max_uses IS NULL OR use_count + reserved_count < max_uses)
        AND (NOT one_time OR use_count + reserved_count < 1)
      RETURNING id`);
    if (!reserved) throw notPayable(await whyNotPayable(tx, link.id));
    const id = prefixedId('plp', 24);
    const payment = await tx.one(sql.type(linkPaymentRow)`
      INSERT INTO payment_link_payments (id, link_id, org_id, project_id, environment, rail, currency, amount_minor, pay_to, rail_ref)
      VALUES (${id}, ${link.id}, ${link.org_id}, ${link.project_id}, ${link.environment}, ${rail}, ${accept.currency},
              ${BigInt(accept.amount_atomic)}, ${accept.pay_to}, ${rail === 'pix' ? pixTxidOf(id) : null})
      RETURNING ${COLUMNS}`);
    if (attach) await attach(tx, payment);
    return payment;
  });
}

async function whyNotPayable(tx: CommonQueryMethods, linkId: string): Promise<NotPayableReason> {
  const row = await tx.one(sql.type(
    z.object({ active: z.boolean(), status: z.string(), expired: z.boolean(), deleted: z.boolean() }),
  )`
    SELECT active, status, coalesce(expires_at <= now(), false) AS expired, deleted_at IS NOT NULL AS deleted FROM payment_links WHERE id = ${linkId}`);
  if (row.deleted || row.status === 'void') return 'void';
  if (row.status === 'paid') return 'paid';
  if (!row.active) return 'paused';
  if (row.expired) return 'expired';
  return 'max_uses_reached';
}

export async function getLinkPayment(
  db: CommonQueryMethods,
  paymentId: string,
): Promise<LinkPaymentRow | null> {
  return db.maybeOne(
    sql.type(linkPaymentRow)`SELECT ${COLUMNS} FROM payment_link_payments WHERE id = ${paymentId}`,
  );
}

export async function findLinkPaymentByRailRef(
  db: CommonQueryMethods,
  railRef: string,
): Promise<LinkPaymentRow | null> {
  return db.maybeOne(
    sql.type(linkPaymentRow)`SELECT ${COLUMNS} FROM payment_link_payments WHERE rail_ref = ${railRef}`,
  );
}

export async function recordPayCode(
  db: CommonQueryMethods,
  paymentId: string,
  payCode: string,
): Promise<void> {
  await db.query(
    sql.unsafe`UPDATE payment_link_payments SET pay_code = ${payCode} WHERE id = ${paymentId} AND pay_code IS NULL`,
  );
}

/**
 * The rail confirmed the money: the payment succeeds, its reserved use becomes a counted one, a capped
 * or one-time link that reached its cap closes as `paid`, and the event is written. A retry finds the
 * payment already settled and changes nothing.
 */
export async function settleLinkPayment(
  db: DatabasePool,
  paymentId: string,
  providerRef: string,
  /** The key ring that opens the gateway's receipt signing key: the payment's receipt is sealed with it. */
  ring: KeyRing,
): Promise<LinkPaymentRow> {
  return db.transaction(async (tx) => {
    const settled = await tx.maybeOne(sql.type(linkPaymentRow)`
      UPDATE payment_link_payments SET status = 'succeeded', settled_at = now(), provider_ref = ${providerRef}
      WHERE id = ${paymentId} AND status = 'pending'
      RETURNING ${COLUMNS}`);
    if (!settled) return (await getLinkPayment(tx, paymentId))!;
    const link = await tx.one(sql.type(
      z.object({ slug: z.string(), use_count: z.number(), status: z.string() }),
    )`
      UPDATE payment_links SET use_count = use_count + 1, reserved_count = reserved_count - 1, updated_at = now(),
        status = CASE WHEN status = 'active' AND (one_time OR (max_uses IS NOT NULL AND use_count + 1 >= max_uses)) THEN 'paid' ELSE status END
      WHERE id = ${settled.link_id}
      RETURNING slug, use_count, status`);
    const receipt = await sealLinkReceipt(tx, ring, settled, providerRef);
    await recordEvent(
      tx,
      { orgId: settled.org_id, projectId: settled.project_id, environment: settled.environment },
      'payment_link.payment_succeeded',
      {
        payment_id: settled.id,
        link_id: settled.link_id,
        slug: link.slug,
        rail: settled.rail,
        currency: settled.currency,
        amount_minor: settled.amount_minor.toString(),
        provider_ref: providerRef,
        use_count: link.use_count,
        link_status: link.status,
        receipt_id: receipt.id,
      },
    );
    return settled;
  });
}

/** The payment ended without money (expired, or its charge could not be made): the reserved use returns. */
export async function releaseLinkPayment(
  db: DatabasePool,
  paymentId: string,
  outcome: 'failed' | 'expired',
  reason: string,
): Promise<LinkPaymentRow> {
  return db.transaction(async (tx) => {
    const released = await tx.maybeOne(sql.type(linkPaymentRow)`
      UPDATE payment_link_payments SET status = ${outcome}, settled_at = now(), failure_reason = ${reason}
      WHERE id = ${paymentId} AND status = 'pending'
      RETURNING ${COLUMNS}`);
    if (!released) return (await getLinkPayment(tx, paymentId))!;
    await tx.query(
      sql.unsafe`UPDATE payment_links SET reserved_count = reserved_count - 1, updated_at = now() WHERE id = ${released.link_id}`,
    );
    if (outcome === 'expired') {
      await recordEvent(
        tx,
        { orgId: released.org_id, projectId: released.project_id, environment: released.environment },
        'payment_link.payment_expired',
        {
          payment_id: released.id,
          link_id: released.link_id,
          rail: released.rail,
          reason,
        },
      );
    }
    return released;
  });
}
