-- Inbound TED transfers credited to a consumer's sub-account: one row per transfer id of the bank, written
-- in the transaction of its ledger `fund` entry and its `commerce.ted_in.succeeded` event, so a repeated
-- notice of the same transfer finds the row and credits nothing.
CREATE TABLE ted_inbound_transfers (
  provider_transfer_id text PRIMARY KEY,
  org_id text NOT NULL,
  project_id text NOT NULL,
  consumer_id text NOT NULL,
  wallet_id text NOT NULL,
  currency text NOT NULL CHECK (currency = 'BRL'),
  amount_minor bigint NOT NULL CHECK (amount_minor > 0),
  ledger_entry_id bigint NOT NULL,
  payer jsonb NOT NULL,
  received_at timestamptz NOT NULL,
  credited_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (org_id, project_id, consumer_id) REFERENCES consumers (org_id, project_id, id) ON DELETE RESTRICT
);
CREATE INDEX ted_inbound_transfers_consumer ON ted_inbound_transfers (org_id, project_id, consumer_id, credited_at DESC);
