// Connections to Temporal: a client for the API and a native connection for workers, with the
// TLS / API-key options a Temporal cluster or Temporal Cloud needs.
import { readFileSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { TemporalSettings } from './config';
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
