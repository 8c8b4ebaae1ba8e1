-- A generated server becomes a provider of its project: a slug unique across accounts (sessions and the
-- providers routes name it), the OpenAPI document it came from, its auth and base URLs, its tools (one per
-- operation, edited while reviewed) and its published versions (immutable snapshots; the newest serves).
ALTER TABLE generated_servers
  ADD COLUMN slug text CHECK (slug ~ '^[a-z0-9][a-z0-9-]{1,63}$'),
  ADD COLUMN source jsonb NOT NULL DEFAULT '{}'::jsonb,
  ADD COLUMN auth jsonb,
  ADD COLUMN base_urls jsonb NOT NULL DEFAULT '{}'::jsonb,
  ADD COLUMN verify jsonb,
  ADD COLUMN published_version integer CHECK (published_version > 0),
  ADD COLUMN published_at timestamptz;
CREATE UNIQUE INDEX generated_servers_slug_key ON generated_servers (slug);

CREATE TABLE generated_server_tools (
  server_id text NOT NULL REFERENCES generated_servers (id) ON DELETE CASCADE,
  position integer NOT NULL CHECK (position >= 0),
  -- The operation's method and path template (`GET /pet/{petId}`): what a tool stays bound to through renames.
  operation_key text NOT NULL,
  name text NOT NULL CHECK (name ~ '^[a-z][a-z0-9_]{0,63}$'),
  description text NOT NULL,
  exposed boolean NOT NULL DEFAULT true,
  input_schema jsonb NOT NULL,
  operation jsonb NOT NULL,
  PRIMARY KEY (server_id, operation_key),
  CONSTRAINT generated_server_tools_name_key UNIQUE (server_id, name)
);

CREATE TABLE generated_server_versions (
  server_id text NOT NULL REFERENCES generated_servers (id) ON DELETE CASCADE,
  version integer NOT NULL CHECK (version > 0),
  snapshot jsonb NOT NULL,
  published_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (server_id, version)
);
