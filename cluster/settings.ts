// Settings of `npm run cluster`: command-line flags win over environment variables, which win over
// defaults sized for a small machine. Ports default away from `npm run dev`'s so both can run.
import { ConfigError } from '../runtime/config';

export interface ClusterSettings {
  workers: number;
  apis: number;
  historyShards: number;
  postgresPort: number;
  /** Frontend, history, matching and worker gRPC ports (membership ports are each + 100) and the frontend's HTTP port. */
  temporalPorts: {
    frontend: number;
    history: number;
    matching: number;
    worker: number;
    frontendHttp: number;
  };
  uiPort: number;
}

function whole(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max)
    throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

export function clusterSettings(
  env: NodeJS.ProcessEnv,
  flags: { workers?: string; apis?: string; shards?: string },
): ClusterSettings {
  // Membership ports (gRPC + 100) are stored as a PostgreSQL smallint by Temporal.
  const frontend = whole('TEMPORAL_CLUSTER_PORT', env.TEMPORAL_CLUSTER_PORT, 7333, 1, 32_600);
  return {
    workers: whole(
      '--workers (GATEWAY_CLUSTER_WORKERS)',
      flags.workers ?? env.GATEWAY_CLUSTER_WORKERS,
      2,
      1,
      64,
    ),
    apis: whole('--apis (GATEWAY_CLUSTER_APIS)', flags.apis ?? env.GATEWAY_CLUSTER_APIS, 2, 1, 64),
    historyShards: whole(
      '--shards (TEMPORAL_HISTORY_SHARDS)',
      flags.shards ?? env.TEMPORAL_HISTORY_SHARDS,
      4,
      1,
      16_384,
    ),
    postgresPort: whole('GATEWAY_CLUSTER_POSTGRES_PORT', env.GATEWAY_CLUSTER_POSTGRES_PORT, 54339, 1, 65_535),
    temporalPorts: {
      frontend,
      history: frontend + 1,
      matching: frontend + 2,
      worker: frontend + 3,
      frontendHttp: frontend + 4,
    },
    uiPort: whole('TEMPORAL_CLUSTER_UI_PORT', env.TEMPORAL_CLUSTER_UI_PORT, 8333, 1, 65_535),
  };
}
