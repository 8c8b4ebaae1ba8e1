-- The event catalog in the database: events.type must be a type of domain/events/catalog.ts, so no writer
-- (recordEvent, the test-fire, or a SQL function such as ledger_post) can store a type receivers cannot
-- subscribe to. event_catalog_types() lists exactly the catalog (a test compares the two); a type added to
-- the catalog needs a migration that replaces this function with the longer list.

-- Emitters used to write four types under other names than the catalog's; the history takes the catalog's
-- names so a type filter or a replay finds every event of one kind.
UPDATE events SET type = CASE type
    WHEN 'payment.completed' THEN 'payment.succeeded'
    WHEN 'payment.dispatch_uncertain' THEN 'payment.uncertain'
    WHEN 'approval.created' THEN 'approval.requested'
    WHEN 'wallet.anomaly_opened' THEN 'wallet.anomaly_detected'
  END
WHERE type IN ('payment.completed', 'payment.dispatch_uncertain', 'approval.created', 'wallet.anomaly_opened');

-- IMMUTABLE, so the check folds the list into a constant once per statement instead of calling per row.
CREATE FUNCTION event_catalog_types() RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
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
    'webhook_endpoint.test'
  ]::text[]
$$;

ALTER TABLE events ADD CONSTRAINT events_type_in_catalog CHECK (type = ANY (event_catalog_types())) NOT VALID;
ALTER TABLE events VALIDATE CONSTRAINT events_type_in_catalog;
