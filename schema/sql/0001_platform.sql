-- Tenancy: organizations contain projects; API keys and users belong to them.

CREATE TABLE organizations (
  id text PRIMARY KEY,
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE projects (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 128),
  slug text NOT NULL CHECK (slug ~ '^[a-z0-9_-]{1,64}$'),
  is_default boolean NOT NULL DEFAULT false,
  environment text NOT NULL CHECK (environment IN ('live', 'test')),
  settings jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT projects_org_slug_key UNIQUE (org_id, slug),
  CONSTRAINT projects_org_id_key UNIQUE (org_id, id)
);
-- At most one default project per organization.
CREATE UNIQUE INDEX projects_one_default_per_org ON projects (org_id) WHERE is_default;

CREATE TABLE project_settings_history (
  id bigserial PRIMARY KEY,
  org_id text NOT NULL,
  project_id text NOT NULL,
  changed_by text NOT NULL,
  changes jsonb NOT NULL,
  settings jsonb NOT NULL,
  changed_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE
);
CREATE INDEX project_settings_history_project ON project_settings_history (project_id, id DESC);

CREATE TABLE users (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  email text NOT NULL,
  display_name text,
  avatar_url text,
  org_role text NOT NULL CHECK (org_role IN ('owner', 'admin', 'member')),
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT users_org_email_key UNIQUE (org_id, email),
  CONSTRAINT users_org_id_key UNIQUE (org_id, id)
);

-- A project-level role override for one user; owners are never overridden.
CREATE TABLE project_members (
  org_id text NOT NULL,
  project_id text NOT NULL,
  user_id text NOT NULL,
  role text NOT NULL CHECK (role IN ('admin', 'member')),
  added_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, user_id),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE,
  FOREIGN KEY (org_id, user_id) REFERENCES users (org_id, id) ON DELETE CASCADE
);

CREATE TABLE api_keys (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  project_id text NOT NULL,
  name text NOT NULL,
  key_hash text NOT NULL UNIQUE,
  key_hint text NOT NULL,
  environment text NOT NULL CHECK (environment IN ('live', 'test')),
  scopes text[] NOT NULL DEFAULT ARRAY['*'],
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz,
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE
);
CREATE INDEX api_keys_project ON api_keys (project_id);

-- Consumers (titulars) live in projects; a project holding any refuses deletion.
CREATE TABLE consumers (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  project_id text NOT NULL,
  display_name text,
  document text,
  document_source text,
  document_verified_at timestamptz,
  person_type text,
  tax_type text CHECK (tax_type IN ('PJ', 'MEI', 'ME', 'PF')),
  status text NOT NULL DEFAULT 'unverified' CHECK (status IN ('unverified', 'verified')),
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE RESTRICT
);
CREATE INDEX consumers_project ON consumers (org_id, project_id, created_at DESC);
