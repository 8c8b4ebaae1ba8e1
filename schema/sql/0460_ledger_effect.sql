-- The ledger rules in SQL: ledger_effect is the statement of domain/ledger/effects.ts `effectOf`, for
-- ledger_post (0461) to apply inside the database. test/ledger-lockstep.test.ts runs every kind, amount and
-- hold state through both, so the two cannot drift apart.
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
