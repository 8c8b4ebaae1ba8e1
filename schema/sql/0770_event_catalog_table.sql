-- The event catalog becomes a table, so a migration adding types inserts its own rows instead of restating
-- the whole list (two areas adding types at once would otherwise each drop the other's). events.type stays
-- checked against event_catalog_types(), an IMMUTABLE constant folded once per statement (a foreign key
-- would take a share lock on one catalog row per event written, a hot row under load); a statement trigger
-- rewrites that function from the table whenever the table changes. The CHECK is not re-validated on a
-- rewrite, so types are only ever added, never removed.
CREATE TABLE event_catalog (
  type text PRIMARY KEY CHECK (type ~ '^[a-z_]+(\.[a-z_]+)+$')
);
INSERT INTO event_catalog (type) SELECT unnest(event_catalog_types());

CREATE FUNCTION event_catalog_rewrite() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  EXECUTE format(
    'CREATE OR REPLACE FUNCTION event_catalog_types() RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS %L',
    format('SELECT %L::text[]', (SELECT coalesce(array_agg(type ORDER BY type), '{}') FROM event_catalog))
  );
  RETURN NULL;
END
$fn$;

CREATE TRIGGER event_catalog_rewrite AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON event_catalog
  FOR EACH STATEMENT EXECUTE FUNCTION event_catalog_rewrite();

-- A removal would leave stored events outside the catalog: refused.
CREATE FUNCTION event_catalog_append_only() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  RAISE EXCEPTION 'event types are only ever added to the catalog';
END
$fn$;
CREATE TRIGGER event_catalog_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON event_catalog
  FOR EACH STATEMENT EXECUTE FUNCTION event_catalog_append_only();
