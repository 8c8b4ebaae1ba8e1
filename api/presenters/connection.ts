// Shapes a provider connection for responses: never a secret, only which fields are stored.
import type { ConnectionRow } from '../../domain/providers/connections';

export function presentConnection(row: ConnectionRow) {
  return {
    id: row.id,
    object: 'connection',
    provider: row.provider,
    auth_type: row.auth_type,
    environment: row.environment,
    label: row.label,
    status: row.status,
    status_reason: row.status_reason,
    rail: row.rail,
    credential_fields: row.secret_fields,
    settings: row.settings,
    created_at: row.created_at,
    updated_at: row.updated_at,
    rotated_at: row.rotated_at,
    last_verified_at: row.last_verified_at,
  };
}
