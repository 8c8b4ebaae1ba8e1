// The public shapes of a payment link (the spec's fields, with `pay_url` built from the slug) and of a
// buyer's payment of it.
import type { LinkRow } from './links';
import type { LinkPaymentRow } from './payment-row';

export const payUrlOf = (origin: string, slug: string): string => `${origin}/pay/${encodeURIComponent(slug)}`;

export function presentLink(row: LinkRow, origin: string): Record<string, unknown> {
  return {
    id: row.id,
    project_id: row.project_id,
    slug: row.slug,
    title: row.title,
    description: row.description,
    pay_url: payUrlOf(origin, row.slug),
    accepts: row.accepts,
    environment: row.environment,
    one_time: row.one_time,
    status: row.status,
    use_count: row.use_count,
    max_uses: row.max_uses,
    expires_at: row.expires_at,
    redirect_url: row.redirect_url,
    active: row.active,
    created_at: row.created_at,
    metadata: row.metadata,
  };
}

export function presentLinkPayment(row: LinkPaymentRow): Record<string, unknown> {
  return {
    payment_id: row.id,
    link_id: row.link_id,
    rail: row.rail,
    status: row.status,
    currency: row.currency,
    amount_minor: row.amount_minor.toString(),
    ...(row.rail === 'pix' ? { pix: { txid: row.rail_ref, br_code: row.pay_code } } : {}),
    ...(row.rail === 'x402' ? { x402: { tx_hash: row.provider_ref } } : {}),
    created_at: row.created_at,
    settled_at: row.settled_at,
  };
}
