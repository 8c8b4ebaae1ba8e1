-- Generated tool servers of a project (GET /v1/generate/servers): a draft until it is published.
CREATE TABLE generated_servers (
  id text PRIMARY KEY CHECK (id ~ '^gsrv_[0-9A-Za-z]+$'),
  org_id text NOT NULL,
  project_id text NOT NULL,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  version text NOT NULL DEFAULT '0.1.0',
  description text,
  status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'published', 'archived')),
  tool_count integer NOT NULL DEFAULT 0 CHECK (tool_count >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, id) ON DELETE CASCADE
);
CREATE INDEX generated_servers_tenant ON generated_servers (org_id, project_id, created_at DESC, id DESC);
