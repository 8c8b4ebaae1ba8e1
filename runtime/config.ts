// Reads the process environment once, validates it, and hands every module the same typed settings.
// Each variable is documented in README.md; defaults make a fresh `npm run dev` work with no setup.
import path from 'node:path';
import { developmentKeyRing, parseKeyRing, type KeyRing } from './key-ring';
import { PROJECT_ROOT } from './project-root';
import { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule } from './retry-schedule';

export interface TemporalSettings {
  address: string | undefined; // undefined: local dev server started by the gateway itself
  namespace: string;
  taskQueue: string;
  apiKey: string | undefined;
  tlsCertPath: string | undefined;
  tlsKeyPath: string | undefined;
  tlsServerName: string | undefined;
  /** Workflows a worker keeps cached (sticky); 0 turns sticky execution off (TEMPORAL_MAX_CACHED_WORKFLOWS). */
  maxCachedWorkflows: number | undefined;
  /** The Temporal Web UI, for the operator console's workflow links (TEMPORAL_UI_URL; `npm run dev` fills in its own). */
  uiUrl: string | undefined;
}

export interface ConsoleSettings {
  /** A processing attempt older than this is listed as stuck (GATEWAY_CONSOLE_STUCK_AFTER_SECONDS). */
  stuckAfterMs: number;
  /** How long an operator's console sign-in lasts (GATEWAY_CONSOLE_SESSION_MINUTES). */
  sessionTtlMs: number;
}

export interface MetricsSettings {
  /** Where the separate metrics listeners bind (GATEWAY_METRICS_HOST). */
  host: string;
  /** The API's own metrics listener, no credential (GATEWAY_METRICS_PORT); unset, only /metrics with the service credential. */
  apiPort: number | undefined;
  /** The worker's metrics listener (GATEWAY_WORKER_METRICS_PORT); unset, the worker serves no metrics. */
  workerPort: number | undefined;
  /** Where the Temporal SDK's own Prometheus exporter binds (TEMPORAL_METRICS_ADDRESS, host:port); the worker's /metrics includes it. */
  temporalAddress: string | undefined;
}

export interface WebhookSettings {
  /** Waits between delivery attempts, in ms (WEBHOOK_RETRY_SCHEDULE); attempts = length + 1. */
  retrySchedule: number[];
  /** A receiver must answer within this many ms (WEBHOOK_TIMEOUT_MS). */
  timeoutMs: number;
  /** How often the worker sweeps for undispatched events and lost chains (WEBHOOK_SWEEP_INTERVAL_MS). */
  sweepIntervalMs: number;
  /** How long an attempt waits for its paused endpoint before it is dead-lettered (WEBHOOK_HOLD_LIMIT_HOURS). */
  holdLimitMs: number;
}

/** The secret `npm run dev` and the tests share with the mock provider; production sets PROVIDER_DDA_WEBHOOK_SECRET. */
export const DEV_DDA_WEBHOOK_SECRET = 'gateway-dev-dda-webhook-secret';
export const DEV_KYC_WEBHOOK_SECRET = 'gateway-dev-kyc-webhook-secret';

/** The card issuer's sandbox credentials `npm run dev` and the tests share with its mock; production sets both. */
export const DEV_ISSUER_WEBHOOK_SECRET = 'gateway-dev-issuer-webhook-secret';
export const DEV_ISSUER_API_KEY = 'isk_test_gateway_dev';

/** The credential vault's key service (GATEWAY_VAULT_KEY_SERVICE) and the keys it needs. */
export type VaultSettings =
  | { keyService: 'local'; localKeys: KeyRing }
  /** localKeys: the local keys of rows sealed before the move to KMS, still readable and re-wrappable. */
  | { keyService: 'kms'; kms: KmsSettings; localKeys?: KeyRing };

export interface KmsSettings {
  keyId: string;
  region: string;
  endpoint: string | undefined;
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined; // undefined: embedded PostgreSQL under dataDir
  databasePoolSize: number;
  /** Statements sent often are prepared once per connection (DATABASE_PREPARED_STATEMENTS, on unless `off`). */
  databasePreparedStatements: boolean;
  serviceToken: string | undefined;
  apiKeyPepper: string;
  encryptionKeys: KeyRing;
  bodyLimitBytes: number;
  temporal: TemporalSettings;
  publicBaseUrl: string | undefined;
  /**
   * Sandbox provider base URLs by provider name, from PROVIDER_<NAME>_URL (name lower-cased): what test keys
   * reach; mocks fill these in dev and tests. Read them through providers/endpoints.ts.
   */
  providerUrls: Record<string, string>;
  /** Live provider base URLs by the same names, from PROVIDER_<NAME>_LIVE_URL: what live keys reach. */
  providerLiveUrls: Record<string, string>;
  /** How long one provider call may take before it is abandoned and retried (PROVIDER_TIMEOUT_MS). */
  providerTimeoutMs: number;
  /** The secret the DDA provider signs its webhooks with (PROVIDER_DDA_WEBHOOK_SECRET; a development value when unset). */
  ddaWebhookSecret: string;
  /** The card issuer's API key and the secret it signs its messages with (PROVIDER_ISSUER_API_KEY, PROVIDER_ISSUER_WEBHOOK_SECRET). */
  issuer: { apiKey: string; webhookSecret: string };
  kyc: KycSettings;
  /** Server-sent event streams: heartbeat interval and how long a stream stays open after its terminal event. */
  sse: { heartbeatMs: number; closeDelayMs: number };
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  webhooks: WebhookSettings;
  /** The credential vault's key-encryption keys: local versioned keys, or a KMS key. */
  vault: VaultSettings;
  /** OAuth clients the gateway registered with providers, by catalog slug (PROVIDER_<SLUG>_OAUTH_CLIENT_ID / _SECRET). */
  providerOAuthClients: Record<string, { clientId: string; clientSecret: string }>;
  console: ConsoleSettings;
  metrics: MetricsSettings;
  /** OTLP endpoint for traces (OTEL_EXPORTER_OTLP_ENDPOINT); unset, tracing is off. */
  otlpEndpoint: string | undefined;
  /** The tool-search classifier: an OpenAI-compatible chat-completions endpoint; unset, search is lexical. */
  toolClassifier: ToolClassifierSettings | undefined;
  /** The x402 rail of payment links: the chain and asset it settles on; unset, the rail is off. */
  x402: X402Settings | undefined;
  topups: TopupSettings;
}

export interface KycSettings {
  /** The secret the KYC provider signs its status webhooks with (PROVIDER_KYC_WEBHOOK_SECRET; a development value when unset). */
  webhookSecret: string;
  /** The first quiet wait before an onboarding asks the provider unprompted (GATEWAY_KYC_POLL_SECONDS); it doubles. */
  pollInitialSeconds: number;
  /** The ceiling of that backoff (GATEWAY_KYC_POLL_MAX_SECONDS). */
  pollMaxSeconds: number;
  /** The first wait before a failed Pix key registration is tried again (GATEWAY_KYC_PIX_RETRY_SECONDS); it doubles. */
  pixRetrySeconds: number;
}

export interface TopupSettings {
  /** The gateway's own Pix key that top-up charges are paid to (GATEWAY_TOPUP_PIX_KEY). */
  pixKey: string;
  /** How long a Pix top-up's charge can be paid (GATEWAY_TOPUP_PIX_SECONDS). */
  pixChargeSeconds: number;
  /** Blocks a USDC deposit must have (its own included) before it is credited (GATEWAY_USDC_DEPOSIT_CONFIRMATIONS). */
  usdcConfirmations: number;
}

export interface X402Settings {
  /** JSON-RPC of the chain (X402_RPC_URL): local verification (nonce, balance) and self-settlement. */
  rpcUrl: string | undefined;
  /** A facilitator speaking the x402 facilitator API (X402_FACILITATOR_URL); set, it verifies and settles. */
  facilitatorUrl: string | undefined;
  chainId: number;
  /** CAIP-2, `eip155:<chainId>`. */
  network: string;
  /** The EIP-3009 token (X402_ASSET) and its EIP-712 domain (X402_ASSET_NAME, X402_ASSET_VERSION). */
  asset: `0x${string}`;
  assetName: string;
  assetVersion: string;
  /** The key that pays gas for self-settlement (X402_SETTLER_KEY); a secret, never logged. */
  settlerKey: `0x${string}` | undefined;
  /** How long a buyer's authorization may be valid (X402_MAX_TIMEOUT_SECONDS). */
  maxTimeoutSeconds: number;
}

export interface ToolClassifierSettings {
  /** Base URL up to `/v1` (GATEWAY_TOOL_CLASSIFIER_URL); `/chat/completions` is appended. */
  url: string;
  model: string;
  apiKey: string | undefined;
  timeoutMs: number;
}

export class ConfigError extends Error {}

function x402Settings(env: NodeJS.ProcessEnv): X402Settings | undefined {
  const rpcUrl = absoluteUrl(env, 'X402_RPC_URL');
  const facilitatorUrl = absoluteUrl(env, 'X402_FACILITATOR_URL');
  if (!rpcUrl && !facilitatorUrl) return undefined;
  const asset = optional(env, 'X402_ASSET');
  if (!asset || !/^0x[0-9a-fA-F]{40}$/.test(asset))
    throw new ConfigError('X402_ASSET must be the 0x address of the EIP-3009 token');
  const settlerKey = optional(env, 'X402_SETTLER_KEY');
  if (settlerKey !== undefined && !/^0x[0-9a-fA-F]{64}$/.test(settlerKey))
    throw new ConfigError('X402_SETTLER_KEY must be a 0x-prefixed 32-byte hex private key');
  if (!facilitatorUrl && !settlerKey)
    throw new ConfigError('X402_RPC_URL without X402_FACILITATOR_URL needs X402_SETTLER_KEY to settle');
  const chainId = int(env, 'X402_CHAIN_ID', 31337, 1, 2 ** 31);
  return {
    rpcUrl,
    facilitatorUrl,
    chainId,
    network: `eip155:${chainId}`,
    asset: asset as `0x${string}`,
    assetName: optional(env, 'X402_ASSET_NAME') ?? 'USD Coin',
    assetVersion: optional(env, 'X402_ASSET_VERSION') ?? '2',
    settlerKey: settlerKey as `0x${string}` | undefined,
    maxTimeoutSeconds: int(env, 'X402_MAX_TIMEOUT_SECONDS', 300, 10, 86_400),
  };
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max)
    throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function optional(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
}

/** PROVIDER_<NAME>_URL (sandbox) or PROVIDER_<NAME>_LIVE_URL (live), by lower-cased name. */
function providerUrls(env: NodeJS.ProcessEnv, environment: 'test' | 'live'): Record<string, string> {
  const urls: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    const match = /^PROVIDER_([A-Z0-9_]+?)(_LIVE)?_URL$/.exec(name);
    if (!match || !value || (match[2] === '_LIVE') !== (environment === 'live')) continue;
    try {
      new URL(value);
    } catch {
      throw new ConfigError(`${name} must be an absolute URL, got "${value}"`);
    }
    urls[match[1].toLowerCase()] = value.replace(/\/+$/, '');
  }
  return urls;
}

function absoluteUrl(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = optional(env, name);
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute URL, got "${raw}"`);
  }
  // The value is rendered into links operators click: only web URLs.
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
  return raw.replace(/\/+$/, '');
}

function onOff(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  if (raw === 'on' || raw === 'off') return raw === 'on';
  throw new ConfigError(`${name} must be on or off, got "${raw}"`);
}

function optionalPort(env: NodeJS.ProcessEnv, name: string): number | undefined {
  return optional(env, name) === undefined ? undefined : int(env, name, 0, 0, 65535);
}

function hostPort(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = optional(env, name);
  if (raw !== undefined && !/^[A-Za-z0-9.:[\]-]+:\d{1,5}$/.test(raw))
    throw new ConfigError(`${name} must be host:port, got "${raw}"`);
  return raw;
}

function retrySchedule(env: NodeJS.ProcessEnv): number[] {
  try {
    return parseRetrySchedule(optional(env, 'WEBHOOK_RETRY_SCHEDULE') ?? DEFAULT_RETRY_SCHEDULE);
  } catch (error) {
    throw new ConfigError(`WEBHOOK_RETRY_SCHEDULE: ${(error as Error).message}`);
  }
}

function vaultSettings(env: NodeJS.ProcessEnv, encryptionKeys: KeyRing): VaultSettings {
  const kind = optional(env, 'GATEWAY_VAULT_KEY_SERVICE') ?? 'local';
  if (kind === 'kms') {
    const keyId = optional(env, 'GATEWAY_VAULT_KMS_KEY_ID');
    if (!keyId)
      throw new ConfigError('GATEWAY_VAULT_KMS_KEY_ID is required when GATEWAY_VAULT_KEY_SERVICE=kms');
    const endpoint = optional(env, 'GATEWAY_VAULT_KMS_ENDPOINT');
    if (endpoint !== undefined && !/^https?:\/\//.test(endpoint))
      throw new ConfigError('GATEWAY_VAULT_KMS_ENDPOINT must be an http(s) URL');
    // The local keys stay configured so rows sealed before the move open, and re-wrapping moves them to KMS.
    const local = optional(env, 'GATEWAY_VAULT_KEYS');
    return {
      keyService: 'kms',
      kms: { keyId, endpoint, region: optional(env, 'AWS_REGION') ?? 'us-east-1' },
      localKeys: local ? parseKeyRing(local) : encryptionKeys,
    };
  }
  if (kind !== 'local') throw new ConfigError('GATEWAY_VAULT_KEY_SERVICE must be local or kms');
  const spec = optional(env, 'GATEWAY_VAULT_KEYS');
  try {
    return { keyService: 'local', localKeys: spec ? parseKeyRing(spec) : encryptionKeys };
  } catch (error) {
    throw new ConfigError(`GATEWAY_VAULT_KEYS: ${(error as Error).message}`);
  }
}

function providerOAuthClients(env: NodeJS.ProcessEnv): Config['providerOAuthClients'] {
  const clients: Config['providerOAuthClients'] = {};
  for (const [name, value] of Object.entries(env)) {
    const match = /^PROVIDER_([A-Z0-9_]+)_OAUTH_CLIENT_ID$/.exec(name);
    if (!match || !value) continue;
    const secret = optional(env, `PROVIDER_${match[1]}_OAUTH_CLIENT_SECRET`);
    if (!secret) throw new ConfigError(`${name} is set without PROVIDER_${match[1]}_OAUTH_CLIENT_SECRET`);
    clients[match[1].toLowerCase().replace(/_/g, '-')] = { clientId: value, clientSecret: secret };
  }
  return clients;
}

const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = path.resolve(optional(env, 'GATEWAY_DATA_DIR') ?? path.join(PROJECT_ROOT, '.data'));
  const serviceToken = optional(env, 'GATEWAY_SERVICE_TOKEN');
  if (serviceToken !== undefined && serviceToken.length < 32) {
    throw new ConfigError('GATEWAY_SERVICE_TOKEN must be at least 32 characters');
  }
  const logLevel = (optional(env, 'LOG_LEVEL') ?? 'info') as Config['logLevel'];
  if (!LOG_LEVELS.includes(logLevel))
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const encryptionKeys = optional(env, 'GATEWAY_ENCRYPTION_KEYS')
    ? parseKeyRing(optional(env, 'GATEWAY_ENCRYPTION_KEYS')!)
    : developmentKeyRing();
  return {
    port: int(env, 'PORT', 8080, 0, 65535),
    host: optional(env, 'HOST') ?? '127.0.0.1',
    dataDir,
    databaseUrl: optional(env, 'DATABASE_URL'),
    databasePoolSize: int(env, 'DATABASE_POOL_SIZE', 10, 1, 500),
    databasePreparedStatements: onOff(env, 'DATABASE_PREPARED_STATEMENTS', true),
    serviceToken,
    // The pepper keeps a stolen key table useless without the process environment.
    apiKeyPepper: optional(env, 'GATEWAY_API_KEY_PEPPER') ?? 'gateway-dev-pepper',
    encryptionKeys,
    bodyLimitBytes: int(env, 'GATEWAY_BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    temporal: {
      address: optional(env, 'TEMPORAL_ADDRESS'),
      namespace: optional(env, 'TEMPORAL_NAMESPACE') ?? 'default',
      taskQueue: optional(env, 'TEMPORAL_TASK_QUEUE') ?? 'gateway',
      apiKey: optional(env, 'TEMPORAL_API_KEY'),
      tlsCertPath: optional(env, 'TEMPORAL_TLS_CERT_PATH'),
      tlsKeyPath: optional(env, 'TEMPORAL_TLS_KEY_PATH'),
      tlsServerName: optional(env, 'TEMPORAL_TLS_SERVER_NAME'),
      maxCachedWorkflows:
        optional(env, 'TEMPORAL_MAX_CACHED_WORKFLOWS') === undefined
          ? undefined
          : int(env, 'TEMPORAL_MAX_CACHED_WORKFLOWS', 0, 0, 100_000),
      uiUrl: absoluteUrl(env, 'TEMPORAL_UI_URL'),
    },
    publicBaseUrl: optional(env, 'GATEWAY_PUBLIC_URL'),
    providerUrls: providerUrls(env, 'test'),
    providerLiveUrls: providerUrls(env, 'live'),
    providerTimeoutMs: int(env, 'PROVIDER_TIMEOUT_MS', 10_000, 50, 120_000),
    ddaWebhookSecret: optional(env, 'PROVIDER_DDA_WEBHOOK_SECRET') ?? DEV_DDA_WEBHOOK_SECRET,
    issuer: {
      apiKey: optional(env, 'PROVIDER_ISSUER_API_KEY') ?? DEV_ISSUER_API_KEY,
      webhookSecret: optional(env, 'PROVIDER_ISSUER_WEBHOOK_SECRET') ?? DEV_ISSUER_WEBHOOK_SECRET,
    },
    kyc: {
      webhookSecret: optional(env, 'PROVIDER_KYC_WEBHOOK_SECRET') ?? DEV_KYC_WEBHOOK_SECRET,
      pollInitialSeconds: int(env, 'GATEWAY_KYC_POLL_SECONDS', 30, 1, 3_600),
      pollMaxSeconds: int(env, 'GATEWAY_KYC_POLL_MAX_SECONDS', 900, 1, 86_400),
      pixRetrySeconds: int(env, 'GATEWAY_KYC_PIX_RETRY_SECONDS', 60, 1, 86_400),
    },
    sse: {
      heartbeatMs: int(env, 'GATEWAY_SSE_HEARTBEAT_MS', 15_000, 10, 600_000),
      closeDelayMs: int(env, 'GATEWAY_SSE_CLOSE_DELAY_MS', 5_000, 0, 600_000),
    },
    logLevel,
    webhooks: {
      retrySchedule: retrySchedule(env),
      timeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 15_000, 100, 60_000),
      sweepIntervalMs: int(env, 'WEBHOOK_SWEEP_INTERVAL_MS', 30_000, 100, 3_600_000),
      holdLimitMs: int(env, 'WEBHOOK_HOLD_LIMIT_HOURS', 720, 1, 8_760) * 3_600_000,
    },
    vault: vaultSettings(env, encryptionKeys),
    providerOAuthClients: providerOAuthClients(env),
    toolClassifier:
      optional(env, 'GATEWAY_TOOL_CLASSIFIER_URL') === undefined
        ? undefined
        : {
            url: absoluteUrl(env, 'GATEWAY_TOOL_CLASSIFIER_URL')!,
            model: optional(env, 'GATEWAY_TOOL_CLASSIFIER_MODEL') ?? 'gpt-4o-mini',
            apiKey: optional(env, 'GATEWAY_TOOL_CLASSIFIER_API_KEY'),
            timeoutMs: int(env, 'GATEWAY_TOOL_CLASSIFIER_TIMEOUT_MS', 3_000, 50, 60_000),
          },
    console: {
      stuckAfterMs: int(env, 'GATEWAY_CONSOLE_STUCK_AFTER_SECONDS', 300, 1, 7 * 86_400) * 1_000,
      sessionTtlMs: int(env, 'GATEWAY_CONSOLE_SESSION_MINUTES', 480, 1, 7 * 1_440) * 60_000,
    },
    metrics: {
      host: optional(env, 'GATEWAY_METRICS_HOST') ?? '127.0.0.1',
      apiPort: optionalPort(env, 'GATEWAY_METRICS_PORT'),
      workerPort: optionalPort(env, 'GATEWAY_WORKER_METRICS_PORT'),
      temporalAddress: hostPort(env, 'TEMPORAL_METRICS_ADDRESS'),
    },
    otlpEndpoint: absoluteUrl(env, 'OTEL_EXPORTER_OTLP_ENDPOINT'),
    x402: x402Settings(env),
    topups: {
      pixKey: optional(env, 'GATEWAY_TOPUP_PIX_KEY') ?? 'topups@gateway.local',
      pixChargeSeconds: int(env, 'GATEWAY_TOPUP_PIX_SECONDS', 900, 60, 86_400),
      usdcConfirmations: int(env, 'GATEWAY_USDC_DEPOSIT_CONFIRMATIONS', 3, 1, 1_000),
    },
  };
}
