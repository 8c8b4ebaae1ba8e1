// Connections to Temporal: a client for the API and a native connection for workers, with the
// TLS / API-key options a Temporal cluster or Temporal Cloud needs.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
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

export async function connectClient(settings: TemporalSettings, address: string): Promise<Client> {
  const connection = await Connection.connect({ address, tls: tls(settings), apiKey: settings.apiKey });
  return new Client({ connection, namespace: settings.namespace, interceptors: clientInterceptors() });
}

export async function connectWorker(settings: TemporalSettings, address: string): Promise<NativeConnection> {
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
      return await connectWorker(settings, address);
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
