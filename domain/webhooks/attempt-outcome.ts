// How one HTTP attempt is judged. 2xx within the timeout is delivered; 410 Gone also pauses the
// endpoint; a redirect is a failure (never followed); anything else fails and may be retried.

export type TransportError =
  'timeout' | 'connection_failed' | 'dns_failed' | 'address_refused' | 'tls_failed' | 'invalid_url';

export interface HttpAnswer {
  status: number;
}

export interface AttemptVerdict {
  delivered: boolean;
  /** The attempt's error code for the delivery row; null when delivered. */
  error: string | null;
  /** A 410 asks the sender to stop: the endpoint is paused. */
  pauseEndpoint: boolean;
  /** 429 and 503 may carry Retry-After, which slows the next attempt. */
  honourRetryAfter: boolean;
}

export function judgeAttempt(
  answer: HttpAnswer | null,
  transportError: TransportError | null,
): AttemptVerdict {
  if (!answer)
    return {
      delivered: false,
      error: transportError ?? 'connection_failed',
      pauseEndpoint: false,
      honourRetryAfter: false,
    };
  const { status } = answer;
  if (status >= 200 && status < 300)
    return { delivered: true, error: null, pauseEndpoint: false, honourRetryAfter: false };
  if (status === 410)
    return { delivered: false, error: 'gone', pauseEndpoint: true, honourRetryAfter: false };
  if (status >= 300 && status < 400)
    return {
      delivered: false,
      error: 'redirect_not_followed',
      pauseEndpoint: false,
      honourRetryAfter: false,
    };
  return {
    delivered: false,
    error: `http_${status}`,
    pauseEndpoint: false,
    honourRetryAfter: status === 429 || status === 503,
  };
}
