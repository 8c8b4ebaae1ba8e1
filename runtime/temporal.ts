// Connections to Temporal, with the TLS / API-key options a Temporal cluster or Temporal Cloud needs. The
// API's client and the workers share one kind of connection: the SDK's native one (its Rust core), which
// costs the API a fraction of the CPU grpc-js does per call and raises the same gRPC errors.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@temporalio/client';
import { NativeConnection, TransportError } from '@temporalio/worker';
import { Backoff } from './backoff';
import type { TemporalSettings } from './config';
import type { Logger } from './logger';
import { clientInterceptors } from './telemetry/tracing';

function tls(settings: TemporalSettings) {
  if (settings.tlsCertPath && settings.tlsKeyPath) {
    return {
      serverNameOverride: settings.tlsServerName,
      clientCertPair: { crt: readFileSync(settings.tlsCertPath), key: readFileSync(settings.tlsKeyPath) },
    };
  }
  return settings.apiKey ? true : undefined; // Temporal Cloud API keys ride on TLS
}

/**
 * The API's client. Deadlines (`withDeadline`) reach the server; the native connection ignores
 * `withAbortSignal`, which the gateway does not use.
 */
export async function connectClient(settings: TemporalSettings, address: string): Promise<Client> {
  return clientOver(await connectNative(settings, address), settings.namespace);
}

/** A client over a native connection opened elsewhere (a test server's), with the API's interceptors. */
export function clientOver(connection: NativeConnection, namespace: string): Client {
  return new Client({ connection, namespace, interceptors: clientInterceptors() });
}

async function connectNative(settings: TemporalSettings, address: string): Promise<NativeConnection> {
  return NativeConnection.connect({ address, tls: tls(settings), apiKey: settings.apiKey });
}

/**
 * A worker's first connection, retried with backoff while the server cannot be reached (a worker started
 * before its Temporal server, or during the server's restart) instead of exiting; each retry is logged.
 * Any other failure (unreadable TLS files, a refused API key) is thrown at once. `signal` ends the wait.
 */
export async function connectWorkerWhenReachable(
  settings: TemporalSettings,
  address: string,
  options: { log: Logger; signal?: AbortSignal },
): Promise<NativeConnection> {
  const backoff = new Backoff();
  for (let attempt = 1; ; attempt++) {
    options.signal?.throwIfAborted();
    try {
      return await connectNative(settings, address);
    } catch (error) {
      if (!(error instanceof TransportError)) throw error;
      const delay = backoff.next();
      options.log.warn('temporal unreachable; retrying the worker connection', {
        temporal_address: address,
        attempt,
        retry_in_ms: delay,
        error: error.message,
      });
      await sleep(delay, undefined, { signal: options.signal });
    }
  }
}
