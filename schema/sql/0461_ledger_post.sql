-- Posting ledger entries in one statement. Each PostgreSQL round trip costs far more than the SQL it
-- carries, and a hot wallet's balance row stays locked from its lock to the commit, so POST
-- /v1/ledger-entries runs ledger_post in autocommit: the locks, the effects (ledger_effect, 0460), the
-- entries, the balances, the hold bookkeeping and the outbox events of one post, or of a batch of posts that
-- arrived together, are one statement and one transaction (group commit). Batches matter beyond the hot
-- wallet: the outbox trigger NOTIFYs, and PostgreSQL lets one NOTIFYing transaction at a time through its
-- commit, WAL flush included, so it is commits per second, not posts, that the database can do.

-- Posts p_kinds[i] of p_amounts[i] to slot (p_wallet_ids[i], p_currencies[i]) for each i and
-- returns one row per entry written (n = i; a partial debit's entry, then its remainder release) with the
-- balance after it, or one row naming the post's refusal (entry columns null). A refusal writes nothing
-- but, for wallet_not_active and balance_constraint_violation, its `ledger.entry_refused` event.
--
-- The posts are applied grouped by wallet and currency, each slot's posts in the order given (posts in
-- flight together have no order of their own), and rows are locked in the order every ledger writer
-- follows: wallets (key share), balance slots (update), holds (update). With p_wait, locks are waited for
-- (up to p_lock_timeout) and a missing slot is created: that is how a post runs on its own. Without it,
-- nothing waits for a wallet or a slot locked elsewhere: such a post, or one whose wallet is not found,
-- comes back failed for the caller to run on its own.
--
-- The effects are computed in order in memory, by ledger_effect on each slot's running balance, and
-- written with one statement per table, so a batch costs a handful of statements whatever its size.
CREATE FUNCTION ledger_post(
  p_org_ids text[], p_project_ids text[], p_environments text[], p_wallet_ids text[], p_currencies text[], p_kinds text[],
  p_amounts bigint[], p_mandate_ids text[], p_attempt_ids text[], p_external_refs text[], p_metadata jsonb[],
  p_new_hold_ids text[], p_event_ids text[], p_wait boolean, p_lock_timeout text
) RETURNS TABLE (
  n int, failed boolean, refusal text, reason text, wallet_status text, slot_available bigint, hold_currency text,
  id bigint, wallet_id text, org_id text, currency text, kind text, amount_minor bigint, hold_id text, mandate_id text,
  attempt_id text, external_ref text, reconciled_at timestamptz, posted_at timestamptz, metadata jsonb,
  balance_minor bigint, available_minor bigint, balance_updated_at timestamptz
) LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
DECLARE
  k int := coalesce(array_length(p_wallet_ids, 1), 0);
  v_settings text := set_config('lock_timeout', p_lock_timeout, true);
  -- What was found and locked, per post (null: not found or not locked).
  v_status text[];
  v_balance bigint[];
  v_available bigint[];
  v_hold_ids text[];
  v_hold_currencies text[];
  v_hold_amounts bigint[];
  v_hold_statuses text[];
  v_ref_taken boolean[];
  v_remainder_ref_taken boolean[];
  -- The current slot's running balance; the current wallet's holds and references as this batch left them.
  s_locked boolean;
  s_balance bigint;
  s_available bigint;
  w_attempts text[];
  w_holds wallet_holds[];
  w_refs text[];
  -- One post.
  v_order int[];
  i int;
  prev int;
  j int;
  v_hold wallet_holds;
  v_effect record;
  v_hold_id text;
  v_entry wallet_ledger_entries;
  v_release wallet_ledger_entries;
  v_event events;
  -- What to write, one statement per table.
  u_wallets text[] := '{}';
  u_currencies text[] := '{}';
  u_balance_deltas bigint[] := '{}';
  u_available_deltas bigint[] := '{}';
  u_posts int[] := '{}';
  new_entries wallet_ledger_entries[] := '{}';
  new_holds wallet_holds[] := '{}';
  resolved_holds wallet_holds[] := '{}';
  new_events events[] := '{}';
BEGIN
  -- Wallets, each under its tenant.
  IF p_wait THEN
    WITH locked AS MATERIALIZED (
      SELECT w.org_id, w.project_id, w.id, w.status FROM wallets w
      WHERE (w.org_id, w.project_id, w.id) IN (SELECT * FROM unnest(p_org_ids, p_project_ids, p_wallet_ids))
      ORDER BY w.id FOR KEY SHARE)
    SELECT array_agg(l.status ORDER BY t.i) INTO v_status
    FROM unnest(p_org_ids, p_project_ids, p_wallet_ids) WITH ORDINALITY AS t (o, p, w, i)
    LEFT JOIN locked l ON l.org_id = t.o AND l.project_id = t.p AND l.id = t.w;
  ELSE
    WITH locked AS MATERIALIZED (
      SELECT w.org_id, w.project_id, w.id, w.status FROM wallets w
      WHERE (w.org_id, w.project_id, w.id) IN (SELECT * FROM unnest(p_org_ids, p_project_ids, p_wallet_ids))
      ORDER BY w.id FOR KEY SHARE SKIP LOCKED)
    SELECT array_agg(l.status ORDER BY t.i) INTO v_status
    FROM unnest(p_org_ids, p_project_ids, p_wallet_ids) WITH ORDINALITY AS t (o, p, w, i)
    LEFT JOIN locked l ON l.org_id = t.o AND l.project_id = t.p AND l.id = t.w;
  END IF;

  -- The balance slots of the active wallets; a slot's first post creates it.
  FOR pass IN 1 .. 2 LOOP
    IF p_wait THEN
      WITH locked AS MATERIALIZED (
        SELECT b.wallet_id, b.currency, b.balance_minor, b.available_minor FROM wallet_balances b
        WHERE (b.wallet_id, b.currency) IN (SELECT t.w, t.c FROM unnest(p_wallet_ids, p_currencies, v_status) AS t (w, c, s) WHERE t.s = 'active')
        ORDER BY b.wallet_id, b.currency FOR UPDATE)
      SELECT array_agg(l.balance_minor ORDER BY t.i), array_agg(l.available_minor ORDER BY t.i) INTO v_balance, v_available
      FROM unnest(p_wallet_ids, p_currencies) WITH ORDINALITY AS t (w, c, i)
      LEFT JOIN locked l ON l.wallet_id = t.w AND l.currency = t.c;
    ELSE
      WITH locked AS MATERIALIZED (
        SELECT b.wallet_id, b.currency, b.balance_minor, b.available_minor FROM wallet_balances b
        WHERE (b.wallet_id, b.currency) IN (SELECT t.w, t.c FROM unnest(p_wallet_ids, p_currencies, v_status) AS t (w, c, s) WHERE t.s = 'active')
        ORDER BY b.wallet_id, b.currency FOR UPDATE SKIP LOCKED)
      SELECT array_agg(l.balance_minor ORDER BY t.i), array_agg(l.available_minor ORDER BY t.i) INTO v_balance, v_available
      FROM unnest(p_wallet_ids, p_currencies) WITH ORDINALITY AS t (w, c, i)
      LEFT JOIN locked l ON l.wallet_id = t.w AND l.currency = t.c;
    END IF;
    EXIT WHEN pass = 2 OR NOT EXISTS (SELECT 1 FROM unnest(v_status, v_balance) AS t (s, b) WHERE t.s = 'active' AND t.b IS NULL);
    -- A slot inserted here is this transaction's to lock on the second pass; one that exists but was
    -- skipped as locked elsewhere is skipped again.
    INSERT INTO wallet_balances (wallet_id, org_id, project_id, currency)
    SELECT DISTINCT t.w, t.o, t.p, t.c FROM unnest(p_wallet_ids, p_org_ids, p_project_ids, p_currencies, v_status, v_balance) AS t (w, o, p, c, s, b)
    WHERE t.s = 'active' AND t.b IS NULL
    ON CONFLICT (wallet_id, currency) DO NOTHING;
  END LOOP;

  -- The holds the posts name by attempt, where the slot is locked: no writer locks a hold without its slot.
  IF EXISTS (SELECT 1 FROM unnest(p_kinds, p_attempt_ids, v_balance) AS t (k, a, b) WHERE t.k IN ('hold', 'release', 'debit') AND t.a IS NOT NULL AND t.b IS NOT NULL) THEN
    WITH locked AS MATERIALIZED (
      SELECT h.id, h.wallet_id, h.attempt_id, h.currency, h.amount_minor, h.status FROM wallet_holds h
      WHERE (h.wallet_id, h.attempt_id) IN (
        SELECT t.w, t.a FROM unnest(p_wallet_ids, p_attempt_ids, p_kinds, v_balance) AS t (w, a, k, b)
        WHERE t.k IN ('hold', 'release', 'debit') AND t.a IS NOT NULL AND t.b IS NOT NULL)
      ORDER BY h.id FOR UPDATE)
    SELECT array_agg(l.id ORDER BY t.i), array_agg(l.currency ORDER BY t.i), array_agg(l.amount_minor ORDER BY t.i), array_agg(l.status ORDER BY t.i)
    INTO v_hold_ids, v_hold_currencies, v_hold_amounts, v_hold_statuses
    FROM unnest(p_wallet_ids, p_attempt_ids, p_kinds) WITH ORDINALITY AS t (w, a, k, i)
    LEFT JOIN locked l ON l.wallet_id = t.w AND l.attempt_id = t.a AND t.k IN ('hold', 'release', 'debit');
  END IF;

  -- External references already on the wallets: a reference is unique per wallet.
  IF cardinality(array_remove(p_external_refs, NULL)) > 0 THEN
    SELECT array_agg(EXISTS (SELECT 1 FROM wallet_ledger_entries e WHERE e.wallet_id = t.w AND e.external_ref = t.r) ORDER BY t.i),
           array_agg(EXISTS (SELECT 1 FROM wallet_ledger_entries e WHERE e.wallet_id = t.w AND e.external_ref = t.r || ':remainder') ORDER BY t.i)
    INTO v_ref_taken, v_remainder_ref_taken
    FROM unnest(p_wallet_ids, p_external_refs) WITH ORDINALITY AS t (w, r, i);
  END IF;

  -- Each wallet's posts, and within it each slot's, one after the other.
  SELECT array_agg(t.i ORDER BY t.w, t.c, t.i) INTO v_order FROM unnest(p_wallet_ids, p_currencies) WITH ORDINALITY AS t (w, c, i);
  FOR x IN 1 .. k LOOP
    i := v_order[x];
    prev := v_order[x - 1];
    IF prev IS NULL OR p_wallet_ids[i] <> p_wallet_ids[prev] THEN
      w_attempts := '{}'; w_holds := '{}'; w_refs := '{}';
    END IF;
    IF prev IS NULL OR p_wallet_ids[i] <> p_wallet_ids[prev] OR p_currencies[i] <> p_currencies[prev] THEN
      s_locked := v_balance[i] IS NOT NULL;
      s_balance := v_balance[i];
      s_available := v_available[i];
      IF s_locked THEN
        u_wallets := array_append(u_wallets, p_wallet_ids[i]); u_currencies := array_append(u_currencies, p_currencies[i]);
        u_balance_deltas := array_append(u_balance_deltas, 0::bigint); u_available_deltas := array_append(u_available_deltas, 0::bigint);
        u_posts := array_append(u_posts, 0);
      END IF;
    END IF;
    v_event.org_id := p_org_ids[i]; v_event.project_id := p_project_ids[i]; v_event.environment := p_environments[i];
    n := i; failed := false; refusal := NULL; reason := NULL; wallet_status := NULL; slot_available := NULL; hold_currency := NULL;
    id := NULL; wallet_id := NULL; org_id := NULL; currency := NULL; kind := NULL; amount_minor := NULL; hold_id := NULL; mandate_id := NULL;
    attempt_id := NULL; external_ref := NULL; reconciled_at := NULL; posted_at := NULL; metadata := NULL;
    balance_minor := NULL; available_minor := NULL; balance_updated_at := NULL;

    IF v_status[i] IS NULL OR v_status[i] = 'active' AND NOT s_locked THEN
      -- Not found, or locked elsewhere; once it has waited, it is not found.
      IF p_wait THEN refusal := 'not_found'; ELSE failed := true; END IF;
      RETURN NEXT;
      CONTINUE;
    END IF;
    IF v_status[i] <> 'active' THEN
      refusal := 'wallet_not_active'; wallet_status := v_status[i];
      RETURN NEXT;
      v_event.id := p_event_ids[2 * i - 1]; v_event.type := 'ledger.entry_refused';
      v_event.data := jsonb_build_object('wallet_id', p_wallet_ids[i], 'currency', p_currencies[i], 'kind', p_kinds[i], 'amount_minor', p_amounts[i]::text,
        'attempt_id', p_attempt_ids[i], 'code', refusal, 'reason', NULL);
      new_events := array_append(new_events, v_event);
      CONTINUE;
    END IF;

    -- The attempt's hold: as this batch left it, else as it was locked.
    v_hold := NULL;
    IF p_kinds[i] IN ('hold', 'release', 'debit') AND p_attempt_ids[i] IS NOT NULL THEN
      j := array_position(w_attempts, p_attempt_ids[i]);
      IF j IS NOT NULL THEN
        v_hold := w_holds[j];
      ELSIF v_hold_ids[i] IS NOT NULL THEN
        v_hold.id := v_hold_ids[i]; v_hold.currency := v_hold_currencies[i]; v_hold.amount_minor := v_hold_amounts[i]; v_hold.status := v_hold_statuses[i];
      END IF;
    END IF;

    IF v_hold.id IS NOT NULL AND v_hold.currency <> p_currencies[i] THEN
      refusal := 'ledger_conflict'; reason := 'hold_currency_mismatch'; hold_currency := v_hold.currency;
    ELSE
      v_effect := ledger_effect(p_kinds[i], p_amounts[i], s_available, v_hold.amount_minor, v_hold.status);
      refusal := v_effect.refusal; reason := v_effect.reason;
      -- A repeated reference is refused after the effect's own refusals, as the unique index refused it.
      IF refusal IS NULL AND p_external_refs[i] IS NOT NULL AND (v_ref_taken[i] OR p_external_refs[i] = ANY (w_refs)
          OR v_effect.release_remainder > 0 AND (v_remainder_ref_taken[i] OR p_external_refs[i] || ':remainder' = ANY (w_refs))) THEN
        refusal := 'ledger_conflict'; reason := 'external_ref_exists';
      END IF;
    END IF;
    IF refusal IS NOT NULL THEN
      slot_available := s_available;
      hold_id := v_hold.id;
      RETURN NEXT;
      IF refusal = 'balance_constraint_violation' THEN
        v_event.id := p_event_ids[2 * i - 1]; v_event.type := 'ledger.entry_refused';
        v_event.data := jsonb_build_object('wallet_id', p_wallet_ids[i], 'currency', p_currencies[i], 'kind', p_kinds[i], 'amount_minor', p_amounts[i]::text,
          'attempt_id', p_attempt_ids[i], 'code', refusal, 'reason', reason);
        new_events := array_append(new_events, v_event);
      END IF;
      CONTINUE;
    END IF;

    -- The entries: a partial debit's remainder release is written first, as postLocked writes it.
    v_hold_id := CASE WHEN p_kinds[i] = 'hold' THEN p_new_hold_ids[i] ELSE v_hold.id END;
    v_entry := NULL;
    v_entry.wallet_id := p_wallet_ids[i]; v_entry.org_id := p_org_ids[i]; v_entry.project_id := p_project_ids[i]; v_entry.currency := p_currencies[i];
    v_entry.mandate_id := p_mandate_ids[i]; v_entry.attempt_id := p_attempt_ids[i]; v_entry.posted_at := now();
    v_release := NULL;
    IF v_effect.release_remainder > 0 THEN
      v_release := v_entry;
      v_release.id := nextval('wallet_ledger_entries_id_seq'); v_release.kind := 'release'; v_release.amount_minor := v_effect.release_remainder;
      v_release.balance_delta := 0; v_release.available_delta := v_effect.release_remainder; v_release.hold_id := v_hold_id;
      v_release.external_ref := p_external_refs[i] || ':remainder'; v_release.metadata := jsonb_build_object('remainder_of_hold', v_hold_id);
      new_entries := array_append(new_entries, v_release);
    END IF;
    v_entry.id := nextval('wallet_ledger_entries_id_seq'); v_entry.kind := p_kinds[i]; v_entry.amount_minor := v_effect.amount;
    v_entry.balance_delta := v_effect.balance_delta; v_entry.available_delta := v_effect.available_delta; v_entry.hold_id := v_hold_id;
    v_entry.external_ref := p_external_refs[i]; v_entry.metadata := coalesce(p_metadata[i], '{}'::jsonb);
    new_entries := array_append(new_entries, v_entry);

    -- The slot's running balance, and the batch's change to the slot.
    s_balance := s_balance + v_effect.balance_delta;
    s_available := s_available + v_effect.available_delta + v_effect.release_remainder;
    j := array_length(u_posts, 1);
    u_balance_deltas[j] := u_balance_deltas[j] + v_effect.balance_delta;
    u_available_deltas[j] := u_available_deltas[j] + v_effect.available_delta + v_effect.release_remainder;
    u_posts[j] := u_posts[j] + 1;

    -- The hold it opens or resolves, remembered for the wallet's later posts in this batch.
    IF p_kinds[i] = 'hold' THEN
      v_hold := NULL;
      v_hold.id := v_hold_id; v_hold.wallet_id := p_wallet_ids[i]; v_hold.currency := p_currencies[i]; v_hold.amount_minor := p_amounts[i];
      v_hold.attempt_id := p_attempt_ids[i]; v_hold.hold_entry_id := v_entry.id; v_hold.status := 'open';
      new_holds := array_append(new_holds, v_hold);
    ELSIF v_hold.id IS NOT NULL THEN
      v_hold.status := CASE WHEN p_kinds[i] = 'debit' THEN 'debited' ELSE 'released' END;
      v_hold.resolved_entry_id := v_entry.id;
      resolved_holds := array_append(resolved_holds, v_hold);
    END IF;
    IF v_hold.id IS NOT NULL AND p_attempt_ids[i] IS NOT NULL THEN
      j := array_position(w_attempts, p_attempt_ids[i]);
      IF j IS NULL THEN
        w_attempts := array_append(w_attempts, p_attempt_ids[i]); w_holds := array_append(w_holds, v_hold);
      ELSE
        w_holds[j] := v_hold;
      END IF;
    END IF;
    IF p_external_refs[i] IS NOT NULL THEN
      w_refs := array_append(w_refs, p_external_refs[i]);
      IF v_release.id IS NOT NULL THEN w_refs := array_append(w_refs, v_release.external_ref); END IF;
    END IF;

    -- Its rows and events: the entry, then the remainder release, each with the balance after the post.
    FOR part IN 1 .. CASE WHEN v_release.id IS NULL THEN 1 ELSE 2 END LOOP
      IF part = 2 THEN v_entry := v_release; END IF;
      id := v_entry.id; wallet_id := v_entry.wallet_id; org_id := v_entry.org_id; currency := v_entry.currency; kind := v_entry.kind;
      amount_minor := v_entry.amount_minor; hold_id := v_entry.hold_id; mandate_id := v_entry.mandate_id; attempt_id := v_entry.attempt_id;
      external_ref := v_entry.external_ref; reconciled_at := v_entry.reconciled_at; posted_at := v_entry.posted_at; metadata := v_entry.metadata;
      balance_minor := s_balance; available_minor := s_available; balance_updated_at := now();
      RETURN NEXT;
      v_event.id := p_event_ids[2 * i - 2 + part]; v_event.type := 'ledger.entry_posted';
      v_event.data := jsonb_build_object('entry_id', v_entry.id::text, 'wallet_id', v_entry.wallet_id, 'currency', v_entry.currency, 'kind', v_entry.kind,
        'amount_minor', v_entry.amount_minor::text, 'hold_id', v_entry.hold_id, 'attempt_id', v_entry.attempt_id, 'external_ref', v_entry.external_ref,
        'balance_minor', s_balance::text, 'available_minor', s_available::text);
      new_events := array_append(new_events, v_event);
    END LOOP;
  END LOOP;

  IF cardinality(new_entries) > 0 THEN
    INSERT INTO wallet_ledger_entries
      (id, wallet_id, org_id, project_id, currency, kind, amount_minor, balance_delta, available_delta, hold_id, mandate_id, attempt_id, external_ref, posted_at, metadata)
    SELECT e.id, e.wallet_id, e.org_id, e.project_id, e.currency, e.kind, e.amount_minor, e.balance_delta, e.available_delta, e.hold_id,
      e.mandate_id, e.attempt_id, e.external_ref, e.posted_at, e.metadata
    FROM unnest(new_entries) AS e;
    UPDATE wallet_balances b SET balance_minor = b.balance_minor + u.bd, available_minor = b.available_minor + u.ad, updated_at = now()
    FROM unnest(u_wallets, u_currencies, u_balance_deltas, u_available_deltas, u_posts) AS u (w, c, bd, ad, posts)
    WHERE u.posts > 0 AND b.wallet_id = u.w AND b.currency = u.c;
  END IF;
  IF cardinality(new_holds) > 0 THEN
    INSERT INTO wallet_holds (id, wallet_id, currency, amount_minor, attempt_id, hold_entry_id)
    SELECT h.id, h.wallet_id, h.currency, h.amount_minor, h.attempt_id, h.hold_entry_id FROM unnest(new_holds) AS h;
  END IF;
  IF cardinality(resolved_holds) > 0 THEN
    UPDATE wallet_holds h SET status = r.status, resolved_entry_id = r.resolved_entry_id, resolved_at = now()
    FROM unnest(resolved_holds) AS r WHERE h.id = r.id AND h.status = 'open';
  END IF;
  IF cardinality(new_events) > 0 THEN
    INSERT INTO events (id, org_id, project_id, environment, type, data)
    SELECT e.id, e.org_id, e.project_id, e.environment, e.type, e.data FROM unnest(new_events) AS e;
  END IF;
END $$;
