-- Posting a ledger entry in one statement. Each PostgreSQL round trip costs far more than the SQL it
-- carries, and a hot wallet's balance row stays locked from its lock to the commit, so POST
-- /v1/ledger-entries runs this function in autocommit: the locks, the effect, the entries, the balance,
-- the hold bookkeeping and the outbox events are one statement and one transaction.
--
-- ledger_effect is the SQL statement of domain/ledger/effects.ts `effectOf`; test/ledger-lockstep.test.ts
-- runs every case through both, so the two cannot drift apart.

CREATE FUNCTION ledger_effect(
  p_kind text, p_amount bigint, p_available bigint, p_hold_amount bigint, p_hold_status text,
  OUT refusal text, OUT reason text, OUT amount bigint, OUT balance_delta bigint, OUT available_delta bigint, OUT release_remainder bigint
) LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  release_remainder := 0;
  CASE p_kind
    WHEN 'fund', 'reconcile', 'reverse' THEN
      amount := p_amount; balance_delta := p_amount; available_delta := p_amount;
    WHEN 'fee' THEN
      amount := -p_amount; balance_delta := -p_amount; available_delta := -p_amount;
    WHEN 'hold' THEN
      IF p_hold_status IS NOT NULL THEN refusal := 'ledger_conflict'; reason := 'hold_exists'; RETURN; END IF;
      amount := -p_amount; balance_delta := 0; available_delta := -p_amount;
    WHEN 'release' THEN
      IF p_hold_status IS NULL THEN refusal := 'ledger_conflict'; reason := 'hold_not_found'; RETURN; END IF;
      IF p_hold_status <> 'open' THEN refusal := 'ledger_conflict'; reason := 'hold_already_resolved'; RETURN; END IF;
      IF p_amount <> p_hold_amount THEN refusal := 'ledger_conflict'; reason := 'release_amount_mismatch'; RETURN; END IF;
      amount := p_amount; balance_delta := 0; available_delta := p_amount;
      RETURN;
    WHEN 'debit' THEN
      IF p_hold_status IS NULL THEN
        amount := -p_amount; balance_delta := -p_amount; available_delta := -p_amount;
      ELSE
        IF p_hold_status <> 'open' THEN refusal := 'ledger_conflict'; reason := 'hold_already_resolved'; RETURN; END IF;
        IF p_amount > p_hold_amount THEN refusal := 'balance_constraint_violation'; reason := 'debit_exceeds_hold'; RETURN; END IF;
        amount := -p_amount; balance_delta := -p_amount; available_delta := 0; release_remainder := p_hold_amount - p_amount;
        RETURN;
      END IF;
  END CASE;
  -- The kinds without a hold to account for must keep available non-negative.
  IF p_available + available_delta < 0 THEN
    refusal := 'balance_constraint_violation'; reason := 'insufficient_available';
    amount := NULL; balance_delta := NULL; available_delta := NULL; release_remainder := NULL;
  END IF;
END $$;

-- Returns one row per entry written (the entry, then a partial debit's remainder release) with the balance
-- after them, or a single row naming the refusal (entry columns null). Refusals write nothing but, for
-- wallet_not_active and balance_constraint_violation, the `ledger.entry_refused` event. Locks are taken in
-- the order every ledger writer uses: wallet (key share), balance slot (update), hold (update).
CREATE FUNCTION ledger_post(
  p_org_id text, p_project_id text, p_environment text, p_wallet_id text, p_currency text, p_kind text, p_amount bigint,
  p_mandate_id text, p_attempt_id text, p_external_ref text, p_metadata jsonb,
  p_new_hold_id text, p_event_ids text[], p_lock_timeout text
) RETURNS TABLE (
  refusal text, reason text, wallet_status text, slot_available bigint, hold_currency text,
  id bigint, wallet_id text, org_id text, currency text, kind text, amount_minor bigint, hold_id text, mandate_id text,
  attempt_id text, external_ref text, reconciled_at timestamptz, posted_at timestamptz, metadata jsonb,
  balance_minor bigint, available_minor bigint, balance_updated_at timestamptz
) LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
DECLARE
  v_status text;
  v_available bigint;
  v_hold wallet_holds%ROWTYPE;
  v_has_hold boolean := false;
  v_effect record;
  v_hold_id text;
  v_entry wallet_ledger_entries%ROWTYPE;
  v_release wallet_ledger_entries%ROWTYPE;
  v_slot wallet_balances%ROWTYPE;
  v_posted wallet_ledger_entries%ROWTYPE;
  v_n int := 0;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout, true);

  SELECT w.status INTO v_status FROM wallets w
  WHERE w.org_id = p_org_id AND w.project_id = p_project_id AND w.id = p_wallet_id FOR KEY SHARE;
  IF NOT FOUND THEN
    refusal := 'not_found';
    RETURN NEXT;
    RETURN;
  END IF;

  IF v_status <> 'active' THEN
    INSERT INTO events (id, org_id, project_id, environment, type, data)
    VALUES (p_event_ids[1], p_org_id, p_project_id, p_environment, 'ledger.entry_refused', jsonb_build_object(
      'wallet_id', p_wallet_id, 'currency', p_currency, 'kind', p_kind, 'amount_minor', p_amount::text, 'attempt_id', p_attempt_id,
      'code', 'wallet_not_active', 'reason', NULL));
    refusal := 'wallet_not_active'; wallet_status := v_status;
    RETURN NEXT;
    RETURN;
  END IF;

  SELECT b.available_minor INTO v_available FROM wallet_balances b
  WHERE b.wallet_id = p_wallet_id AND b.currency = p_currency FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO wallet_balances (wallet_id, org_id, project_id, currency) VALUES (p_wallet_id, p_org_id, p_project_id, p_currency)
    ON CONFLICT (wallet_id, currency) DO NOTHING;
    SELECT b.available_minor INTO v_available FROM wallet_balances b
    WHERE b.wallet_id = p_wallet_id AND b.currency = p_currency FOR UPDATE;
  END IF;

  IF p_kind IN ('hold', 'release', 'debit') AND p_attempt_id IS NOT NULL THEN
    SELECT * INTO v_hold FROM wallet_holds h WHERE h.wallet_id = p_wallet_id AND h.attempt_id = p_attempt_id FOR UPDATE;
    v_has_hold := FOUND;
  END IF;
  IF v_has_hold AND v_hold.currency <> p_currency THEN
    refusal := 'ledger_conflict'; reason := 'hold_currency_mismatch'; hold_currency := v_hold.currency; hold_id := v_hold.id;
    RETURN NEXT;
    RETURN;
  END IF;

  SELECT * INTO v_effect FROM ledger_effect(p_kind, p_amount, v_available,
    CASE WHEN v_has_hold THEN v_hold.amount_minor END, CASE WHEN v_has_hold THEN v_hold.status END);
  IF v_effect.refusal IS NOT NULL THEN
    IF v_effect.refusal = 'balance_constraint_violation' THEN
      INSERT INTO events (id, org_id, project_id, environment, type, data)
      VALUES (p_event_ids[1], p_org_id, p_project_id, p_environment, 'ledger.entry_refused', jsonb_build_object(
        'wallet_id', p_wallet_id, 'currency', p_currency, 'kind', p_kind, 'amount_minor', p_amount::text, 'attempt_id', p_attempt_id,
        'code', v_effect.refusal, 'reason', v_effect.reason));
    END IF;
    refusal := v_effect.refusal; reason := v_effect.reason; slot_available := v_available;
    hold_id := CASE WHEN v_has_hold THEN v_hold.id END;
    RETURN NEXT;
    RETURN;
  END IF;

  v_hold_id := CASE WHEN p_kind = 'hold' THEN p_new_hold_id WHEN v_has_hold THEN v_hold.id END;
  IF v_effect.release_remainder > 0 THEN
    INSERT INTO wallet_ledger_entries
      (wallet_id, org_id, project_id, currency, kind, amount_minor, balance_delta, available_delta, hold_id, mandate_id, attempt_id, external_ref, metadata)
    VALUES (p_wallet_id, p_org_id, p_project_id, p_currency, 'release', v_effect.release_remainder, 0, v_effect.release_remainder, v_hold_id,
      p_mandate_id, p_attempt_id, p_external_ref || ':remainder', jsonb_build_object('remainder_of_hold', v_hold_id))
    RETURNING * INTO v_release;
  END IF;
  INSERT INTO wallet_ledger_entries
    (wallet_id, org_id, project_id, currency, kind, amount_minor, balance_delta, available_delta, hold_id, mandate_id, attempt_id, external_ref, metadata)
  VALUES (p_wallet_id, p_org_id, p_project_id, p_currency, p_kind, v_effect.amount, v_effect.balance_delta, v_effect.available_delta, v_hold_id,
    p_mandate_id, p_attempt_id, p_external_ref, COALESCE(p_metadata, '{}'::jsonb))
  RETURNING * INTO v_entry;
  UPDATE wallet_balances b SET balance_minor = b.balance_minor + v_effect.balance_delta,
    available_minor = b.available_minor + v_effect.available_delta + v_effect.release_remainder, updated_at = now()
  WHERE b.wallet_id = p_wallet_id AND b.currency = p_currency
  RETURNING * INTO v_slot;

  IF p_kind = 'hold' THEN
    INSERT INTO wallet_holds (id, wallet_id, currency, amount_minor, attempt_id, hold_entry_id)
    VALUES (v_hold_id, p_wallet_id, p_currency, p_amount, p_attempt_id, v_entry.id);
  ELSIF v_has_hold THEN
    UPDATE wallet_holds h SET status = CASE WHEN p_kind = 'debit' THEN 'debited' ELSE 'released' END,
      resolved_entry_id = v_entry.id, resolved_at = now()
    WHERE h.id = v_hold.id AND h.status = 'open';
  END IF;

  FOREACH v_posted IN ARRAY ARRAY[v_entry, v_release] LOOP
    CONTINUE WHEN v_posted.id IS NULL;
    v_n := v_n + 1;
    INSERT INTO events (id, org_id, project_id, environment, type, data)
    VALUES (p_event_ids[v_n], p_org_id, p_project_id, p_environment, 'ledger.entry_posted', jsonb_build_object(
      'entry_id', v_posted.id::text, 'wallet_id', v_posted.wallet_id, 'currency', v_posted.currency, 'kind', v_posted.kind,
      'amount_minor', v_posted.amount_minor::text, 'hold_id', v_posted.hold_id, 'attempt_id', v_posted.attempt_id,
      'external_ref', v_posted.external_ref, 'balance_minor', v_slot.balance_minor::text, 'available_minor', v_slot.available_minor::text));
    id := v_posted.id; wallet_id := v_posted.wallet_id; org_id := v_posted.org_id; currency := v_posted.currency; kind := v_posted.kind;
    amount_minor := v_posted.amount_minor; hold_id := v_posted.hold_id; mandate_id := v_posted.mandate_id; attempt_id := v_posted.attempt_id;
    external_ref := v_posted.external_ref; reconciled_at := v_posted.reconciled_at; posted_at := v_posted.posted_at; metadata := v_posted.metadata;
    balance_minor := v_slot.balance_minor; available_minor := v_slot.available_minor; balance_updated_at := v_slot.updated_at;
    RETURN NEXT;
  END LOOP;
END $$;
