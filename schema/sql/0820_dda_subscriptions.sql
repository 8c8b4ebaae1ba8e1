-- DDA registrations: one row per registration of a payer document (CPF or CNPJ, digits only) for a
-- consumer, so the provider lists the boletos that document owes. client_request_id is derived from the
-- organization, consumer, document and the caller's idempotency key; the same key answers the same row.
-- `registered_at` is when the provider accepted the registration (null while it has not: a retry with
-- the same key registers again); `provider_subscription_id` arrives with the provider's confirmation.
CREATE TABLE dda_subscriptions (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  project_id text NOT NULL,
  environment text NOT NULL CHECK (environment IN ('live', 'test')),
  consumer_id text NOT NULL,
  document text NOT NULL CHECK (document ~ '^([0-9]{11}|[0-9]{14})$'),
  client_request_id text NOT NULL UNIQUE,
  mandate_id text NOT NULL,
  client_name text,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'active', 'error', 'deleted')),
  provider_subscription_id text,
  error_code text,
  registered_at timestamptz,
  activated_at timestamptz,
  deleted_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (status <> 'active' OR provider_subscription_id IS NOT NULL),
  CHECK ((status = 'deleted') = (deleted_at IS NOT NULL)),
  FOREIGN KEY (org_id, project_id, consumer_id) REFERENCES consumers (org_id, project_id, id) ON DELETE RESTRICT,
  FOREIGN KEY (org_id, project_id, mandate_id) REFERENCES mandates (org_id, project_id, id) ON DELETE RESTRICT
);
-- At most one live (pending or active) registration per consumer and document.
CREATE UNIQUE INDEX dda_subscriptions_live ON dda_subscriptions (org_id, project_id, consumer_id, document)
  WHERE status IN ('pending', 'active');
CREATE INDEX dda_subscriptions_document ON dda_subscriptions (org_id, project_id, consumer_id, document, created_at DESC);

INSERT INTO event_catalog (type) VALUES
  ('dda.subscription.activated'),
  ('dda.subscription.failed'),
  ('dda.subscription.deleted')
ON CONFLICT DO NOTHING;
