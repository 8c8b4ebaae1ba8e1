// The public shapes of a webhook endpoint (trigger) and of one delivery attempt. The signing secret
// never appears here; only the creation response adds it, once.
import type { DeliveryRow } from '../../domain/webhooks/deliveries';
import type { EndpointRow } from '../../domain/webhooks/endpoints';

export function presentEndpoint(row: EndpointRow): Record<string, unknown> {
  return {
    id: row.id,
    org_id: row.org_id,
    project_id: row.project_id,
    name: row.name,
    event: row.event,
    webhook_url: row.webhook_url,
    server_id: row.server_id,
    status: row.status,
    status_reason: row.status === 'active' ? null : row.status_reason,
    total_runs: Number(row.total_runs),
    last_run_at: row.last_run_at,
    signing_enabled: row.signing_enabled,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function presentDelivery(row: DeliveryRow): Record<string, unknown> {
  return {
    id: row.id.toString(),
    trigger_id: row.trigger_id,
    event_id: row.event_id,
    attempt: row.attempt,
    status: row.status,
    created_at: row.created_at,
    chain_id: row.chain_id.toString(),
    origin: row.origin,
    redelivery_of: row.redelivery_of?.toString() ?? null,
    scheduled_at: row.scheduled_at,
    waiting_for_endpoint: row.status === 'pending' && row.held_since !== null,
    attempted_at: row.attempted_at,
    duration_ms: row.duration_ms,
    error: row.error,
    request:
      row.request_url === null
        ? null
        : {
            url: row.request_url,
            headers: row.request_headers ?? {},
            body: row.request_body,
            body_truncated: row.request_body_truncated,
          },
    response:
      row.response_status === null
        ? null
        : {
            status: row.response_status,
            headers: row.response_headers ?? {},
            body: row.response_body,
            body_truncated: row.response_body_truncated,
          },
  };
}
