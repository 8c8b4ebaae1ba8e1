// The one shape an event has outside the gateway: what receivers get in a webhook body and what
// GET /v1/events returns. Fields: id, type, created_at, project_id, environment, data.
import type { Environment } from '../tenancy/api-key-format';

export interface EventPayload {
  id: string;
  type: string;
  created_at: string;
  project_id: string;
  environment: Environment;
  data: unknown;
}

export function eventPayload(event: {
  id: string;
  type: string;
  created_at: string;
  project_id: string;
  environment: Environment;
  data?: unknown;
}): EventPayload {
  return {
    id: event.id,
    type: event.type,
    created_at: event.created_at,
    project_id: event.project_id,
    environment: event.environment,
    data: event.data ?? null,
  };
}
