// Fetches a document (an OpenAPI description) from a URL under the proxy's destination rules: http or
// https only, no redirects followed, a deadline and a size cap, and for a live key only public addresses,
// the connection pinned to the checked one. Anything short of a 2xx answer is DocumentUnreachable.
import type { Environment } from '../../domain/tenancy/api-key-format';
import { pinnedPublicAddress, ProxyRefused } from '../proxy/proxy-execute';
import { sendUpstream, UpstreamUnreachable } from '../upstream/send';

export const MAX_DOCUMENT_BYTES = 4 * 1024 * 1024;

export class DocumentUnreachable extends Error {
  constructor(
    readonly reason:
      | 'invalid_url'
      | 'destination_forbidden'
      | 'host_unresolved'
      | 'unreachable'
      | 'timeout'
      | 'too_large'
      | 'status',
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'DocumentUnreachable';
  }
}

export async function fetchDocument(
  address: string,
  environment: Environment,
  timeoutMs: number,
): Promise<string> {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new DocumentUnreachable('invalid_url', 'The document URL does not parse');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new DocumentUnreachable('invalid_url', 'The document URL must be http or https');
  let pinned: Awaited<ReturnType<typeof pinnedPublicAddress>> | undefined;
  try {
    pinned = environment === 'live' ? await pinnedPublicAddress(url) : undefined;
  } catch (error) {
    if (!(error instanceof ProxyRefused)) throw error;
    throw new DocumentUnreachable(
      error.code === 'host_unresolved' ? 'host_unresolved' : 'destination_forbidden',
      error.message.replace("The provider's host", 'The document host'),
    );
  }
  try {
    const answer = await sendUpstream(
      {
        method: 'GET',
        url,
        headers: { accept: 'application/json, application/yaml;q=0.9, text/yaml;q=0.9, */*;q=0.5' },
        body: Buffer.alloc(0),
      },
      { timeoutMs, maxResponseBytes: MAX_DOCUMENT_BYTES, ...(pinned ? { lookupAddress: pinned } : {}) },
    );
    if (answer.status < 200 || answer.status >= 300)
      throw new DocumentUnreachable('status', `The document URL answered ${answer.status}`, answer.status);
    return answer.body.toString('utf8');
  } catch (error) {
    if (error instanceof DocumentUnreachable) throw error;
    // Node refuses to even send to some URLs the WHATWG parser takes (ERR_INVALID_*, ERR_UNESCAPED_*).
    if (!(error instanceof UpstreamUnreachable)) {
      if (/^ERR_/.test((error as NodeJS.ErrnoException).code ?? ''))
        throw new DocumentUnreachable(
          'invalid_url',
          `The document URL cannot be requested: ${(error as Error).message}`,
        );
      throw error;
    }
    const reason =
      error.reason === 'timeout' ? 'timeout' : error.reason === 'too_large' ? 'too_large' : 'unreachable';
    throw new DocumentUnreachable(
      reason,
      reason === 'too_large'
        ? `The document exceeds ${MAX_DOCUMENT_BYTES} bytes`
        : `The document URL could not be read: ${error.message}`,
    );
  }
}
