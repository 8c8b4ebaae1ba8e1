// The gateway as an MCP client of a tenant's upstream server, through the official client SDK over Streamable
// HTTP: the validate handshake (connect, list tools) and one tools/call. Every request goes through a fetch
// that, in live mode, refuses hosts resolving to loopback, private or reserved addresses (the proxy's
// address policy), and that remembers what the wire did, so a failure is classified by what happened
// (never answered, answered 401/403, answered something that is not MCP, ran out of time) rather than by
// an error's wording.
import { createHash } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import {
  Client,
  ProtocolError,
  SdkError,
  StreamableHTTPClientTransport,
  type PriorDiscovery,
} from '@modelcontextprotocol/client';
import type { Environment } from '../../domain/tenancy/api-key-format';
import { isPublicAddress } from '../proxy/address-policy';

export interface UpstreamAuth {
  header: string;
  value: string;
}

export interface UpstreamTarget {
  url: string;
  auth: UpstreamAuth | null;
  environment: Environment;
  timeoutMs: number;
}

export type HandshakeFailureCode =
  'unreachable' | 'not_mcp' | 'auth_refused' | 'timed_out' | 'forbidden_address';

export class UpstreamAddressRefused extends Error {
  constructor() {
    super('The upstream host resolves to a loopback, private or reserved address');
    this.name = 'UpstreamAddressRefused';
  }
}

/** What the wire did during one exchange: the basis of every classification below. */
interface WireLog {
  sent: boolean;
  statuses: number[];
  networkError: boolean;
  refusedAddress: boolean;
  timedOut: boolean;
}

async function requirePublicHost(url: URL): Promise<void> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: Array<{ address: string }>;
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch {
    return; // does not resolve: the fetch itself fails as unreachable
  }
  if (addresses.length === 0 || addresses.some((a) => !isPublicAddress(a.address)))
    throw new UpstreamAddressRefused();
}

function wiredFetch(target: UpstreamTarget, log: WireLog, signal: AbortSignal): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (target.environment === 'live') {
      try {
        await requirePublicHost(url);
      } catch (error) {
        log.refusedAddress = true;
        throw error;
      }
    }
    const headers = new Headers(init?.headers);
    if (target.auth) headers.set(target.auth.header, target.auth.value);
    try {
      log.sent = true;
      const response = await fetch(url, { ...init, headers, signal, redirect: 'manual' });
      log.statuses.push(response.status);
      return response;
    } catch (error) {
      if (signal.aborted) log.timedOut = true;
      else log.networkError = true;
      throw error;
    }
  };
}

function classify(log: WireLog, error: unknown): { code: HandshakeFailureCode; message: string } {
  if (log.refusedAddress)
    return {
      code: 'forbidden_address',
      message: 'The upstream host resolves to a loopback, private or reserved address',
    };
  if (log.timedOut) return { code: 'timed_out', message: 'The upstream did not answer in time' };
  if (log.statuses.some((s) => s === 401 || s === 403))
    return { code: 'auth_refused', message: 'The upstream refused the credential' };
  if (log.networkError && log.statuses.length === 0)
    return { code: 'unreachable', message: 'Nothing answered at the upstream URL' };
  const detail = error instanceof SdkError ? error.code : 'protocol';
  return { code: 'not_mcp', message: `The upstream did not speak MCP (${detail})` };
}

/**
 * The era each upstream answered with, per URL and credential (the SDK's cached verdict): a tools/call then
 * skips the discovery probe. Kept briefly, and dropped when a connection with it fails.
 */
const VERDICT_TTL_MS = 5 * 60_000;
const verdicts = new Map<string, { prior: PriorDiscovery; until: number }>();
const verdictKey = (target: UpstreamTarget) =>
  createHash('sha256')
    .update(JSON.stringify([target.url, target.auth?.header ?? null, target.auth?.value ?? null]))
    .digest('hex');

async function connected<T>(
  target: UpstreamTarget,
  work: (client: Client) => Promise<T>,
  options: { reuseVerdict: boolean } = { reuseVerdict: false },
): Promise<{ ok: true; value: T; log: WireLog } | { ok: false; error: unknown; log: WireLog }> {
  const log: WireLog = {
    sent: false,
    statuses: [],
    networkError: false,
    refusedAddress: false,
    timedOut: false,
  };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), target.timeoutMs);
  const client = new Client(
    { name: 'agent-payments-gateway', version: '0.3.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(target.url), {
    fetch: wiredFetch(target, log, controller.signal),
  });
  try {
    const deadline = new Promise<never>((_, reject) => {
      controller.signal.addEventListener('abort', () => {
        log.timedOut = true;
        reject(new Error('deadline'));
      });
    });
    const key = options.reuseVerdict ? verdictKey(target) : null;
    const cached = key ? verdicts.get(key) : undefined;
    const prior = cached && cached.until > Date.now() ? cached.prior : undefined;
    const value = await Promise.race([
      (async () => {
        await client.connect(transport, prior ? { prior } : undefined);
        if (key && !prior) {
          const discover = client.getDiscoverResult();
          verdicts.set(key, {
            prior: discover ? { kind: 'modern', discover } : { kind: 'legacy' },
            until: Date.now() + VERDICT_TTL_MS,
          });
        }
        return work(client);
      })(),
      deadline,
    ]);
    return { ok: true, value, log };
  } catch (error) {
    if (options.reuseVerdict) verdicts.delete(verdictKey(target));
    return { ok: false, error, log };
  } finally {
    clearTimeout(timer);
    void client.close().catch(() => undefined);
  }
}

export interface HandshakeTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

export type Handshake =
  | {
      ok: true;
      protocol_version: string | null;
      server: { name: string; version: string } | null;
      latency_ms: number;
      tools: HandshakeTool[];
    }
  | { ok: false; failure: { code: HandshakeFailureCode; message: string }; latency_ms: number };

/** Connects (initialize or discover, per the SDK's negotiation) and lists the tools; stores nothing. */
export async function handshake(target: UpstreamTarget): Promise<Handshake> {
  const started = performance.now();
  const result = await connected(target, async (client) => {
    const listed = await client.listTools();
    return {
      protocol: client.getNegotiatedProtocolVersion() ?? null,
      server: client.getServerVersion() ?? null,
      tools: listed.tools,
    };
  });
  const latency = Math.round(performance.now() - started);
  if (!result.ok) return { ok: false, failure: classify(result.log, result.error), latency_ms: latency };
  return {
    ok: true,
    protocol_version: result.value.protocol,
    server: result.value.server
      ? { name: result.value.server.name, version: result.value.server.version }
      : null,
    latency_ms: latency,
    tools: result.value.tools.map((tool) => ({
      name: tool.name,
      description: tool.description ?? '',
      input_schema: tool.inputSchema as Record<string, unknown>,
    })),
  };
}

/**
 * One tools/call's outcome, as a money move needs it: `succeeded` and `failed` are the upstream's own answer;
 * `unknown` means the call may have run upstream and nobody can say (the connection broke after the call was
 * sent, or the answer was unreadable). Refusals before anything was sent, and answers too late, are `failed`.
 */
export type UpstreamCallOutcome =
  | { status: 'succeeded'; output: Record<string, unknown> }
  | { status: 'failed'; code: string; message: string; output?: Record<string, unknown> }
  | { status: 'unknown'; message: string };

export async function callUpstream(
  target: UpstreamTarget,
  tool: string,
  args: Record<string, unknown>,
): Promise<UpstreamCallOutcome> {
  let callSent = false;
  const result = await connected(
    target,
    async (client) => {
      callSent = true;
      return client.callTool({ name: tool, arguments: args });
    },
    { reuseVerdict: true },
  );
  if (result.ok) {
    const answer = result.value as { isError?: boolean; structuredContent?: unknown; content?: unknown };
    const output =
      answer.structuredContent && typeof answer.structuredContent === 'object'
        ? (answer.structuredContent as Record<string, unknown>)
        : { content: answer.content ?? [] };
    if (answer.isError)
      return { status: 'failed', code: 'upstream_tool_error', message: 'The upstream tool failed', output };
    return { status: 'succeeded', output };
  }
  const failure = classify(result.log, result.error);
  // Nothing was called when the handshake failed: a plain failure, whatever the reason.
  if (!callSent) return { status: 'failed', code: `upstream_${failure.code}`, message: failure.message };
  if (failure.code === 'timed_out')
    return { status: 'failed', code: 'upstream_timed_out', message: failure.message };
  if (failure.code === 'auth_refused')
    return { status: 'failed', code: 'upstream_auth_refused', message: failure.message };
  // An HTTP error status or a JSON-RPC error is the upstream's own refusal of the call.
  const last = result.log.statuses.at(-1) ?? 0;
  if (!result.log.networkError && (last >= 400 || result.error instanceof ProtocolError))
    return { status: 'failed', code: 'upstream_error', message: 'The upstream refused the call' };
  // The connection broke after the call was sent, or the answer could not be read: it may have run.
  return { status: 'unknown', message: 'The call reached the upstream but its answer never arrived' };
}
