-- Link payments: one row per buyer's attempt to pay a link over one rail. A row exists only after its
-- link's use was reserved (payment_links.reserved_count), in the same transaction; it settles into a
-- counted use or releases the reservation, exactly once (the status moves only from `pending`).
CREATE TABLE payment_link_payments (
  id text PRIMARY KEY,
  link_id text NOT NULL REFERENCES payment_links (id),
  org_id text NOT NULL,
  project_id text NOT NULL,
  environment text NOT NULL CHECK (environment IN ('live', 'test')),
  rail text NOT NULL CHECK (rail IN ('x402', 'pix')),
  currency text NOT NULL,
  amount_minor bigint NOT NULL CHECK (amount_minor > 0),
  pay_to text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed', 'expired')),
  -- The rail's own reference: the Pix charge's txid (26..35 alphanumerics), unique at the PSP.
  rail_ref text UNIQUE,
  -- What the buyer pays with (the Pix BR Code), once the charge exists.
  pay_code text,
  provider_ref text,
  failure_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  settled_at timestamptz,
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE,
  CHECK ((status = 'pending') = (settled_at IS NULL))
);
CREATE INDEX payment_link_payments_link ON payment_link_payments (link_id, created_at DESC);

-- The catalog gains the link payment events (domain/events/catalog.ts).
CREATE OR REPLACE FUNCTION event_catalog_types() RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT ARRAY[
    'tool_call.succeeded',
    'tool_call.failed',
    'commerce.ted_in.succeeded',
    'payment.succeeded',
    'payment.failed',
    'payment.denied',
    'payment.requires_approval',
    'payment.uncertain',
    'receipt.sealed',
    'receipt.delivered',
    'receipt.exception',
    'receipt.voided',
    'approval.requested',
    'approval.approved',
    'approval.denied',
    'approval.expired',
    'approval.executed',
    'approval.execution_failed',
    'consumer.created',
    'consumer.updated',
    'consumer.verified',
    'consumer.funding_source.created',
    'contact_verification.sent',
    'contact_verification.verified',
    'consent.created',
    'consent.consumed',
    'consent.expired',
    'mandate.signed',
    'mandate.amended',
    'mandate.revoked',
    'mandate.expired',
    'wallet.created',
    'wallet.frozen',
    'wallet.unfrozen',
    'wallet.closed',
    'wallet.funding_source_bound',
    'wallet.funding_source_unbound',
    'wallet.anomaly_detected',
    'wallet.anomaly_resolved',
    'ledger.entry_posted',
    'ledger.entry_refused',
    'oauth_grant.created',
    'oauth_grant.revoked',
    'webhook_endpoint.test',
    'payment_link.payment_succeeded',
    'payment_link.payment_expired'
  ]::text[]
$$;
