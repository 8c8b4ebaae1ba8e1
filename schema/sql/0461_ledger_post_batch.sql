-- Group commit for ledger posts: the API process sends the posts that arrive while earlier ones are in
-- flight as one statement, so many posts share a round trip and a commit, and a hot wallet's balance row is
-- locked once per batch instead of once per post. It matters beyond the hot wallet: the outbox trigger
-- NOTIFYs, and PostgreSQL lets one NOTIFYing transaction at a time through its commit, WAL flush included,
-- so commits per second, not posts, are what the database can do. Each post runs ledger_post in its own subtransaction:
-- a post that raises (a repeated external_ref, a lock it would have to wait for) is rolled back alone and
-- reported as failed, and the caller runs it again on its own with the full lock wait, so its answer is
-- exactly what a lone post would get. The caller sorts the posts by wallet and currency, the lock order
-- every ledger writer follows, and keeps a batch under 64 posts, the subtransactions PostgreSQL tracks per
-- backend without overflowing.
CREATE FUNCTION ledger_post_batch(
  p_org_ids text[], p_project_ids text[], p_environments text[], p_wallet_ids text[], p_currencies text[], p_kinds text[], p_amounts bigint[],
  p_mandate_ids text[], p_attempt_ids text[], p_external_refs text[], p_metadata jsonb[],
  p_new_hold_ids text[], p_event_ids text[], p_item_lock_timeout text, p_lock_timeout text
) RETURNS TABLE (
  n int, failed boolean,
  refusal text, reason text, wallet_status text, slot_available bigint, hold_currency text,
  id bigint, wallet_id text, org_id text, currency text, kind text, amount_minor bigint, hold_id text, mandate_id text,
  attempt_id text, external_ref text, reconciled_at timestamptz, posted_at timestamptz, metadata jsonb,
  balance_minor bigint, available_minor bigint, balance_updated_at timestamptz
) LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  FOR i IN 1 .. coalesce(array_length(p_wallet_ids, 1), 0) LOOP
    BEGIN
      -- ledger_post materializes its rows before they are returned here, so a post that raises returns none.
      RETURN QUERY SELECT i, false, r.* FROM ledger_post(
        p_org_ids[i], p_project_ids[i], p_environments[i], p_wallet_ids[i], p_currencies[i], p_kinds[i], p_amounts[i],
        p_mandate_ids[i], p_attempt_ids[i], p_external_refs[i], p_metadata[i], p_new_hold_ids[i],
        ARRAY[p_event_ids[2 * i - 1], p_event_ids[2 * i]], p_item_lock_timeout) r;
    EXCEPTION WHEN OTHERS THEN
      n := i; failed := true;
      RETURN NEXT;
    END;
  END LOOP;
  -- The commit waits for the outbox's NOTIFY lock (one committer at a time) as long as a lone post would.
  PERFORM set_config('lock_timeout', p_lock_timeout, true);
END $$;
