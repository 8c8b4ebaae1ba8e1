// The two error types every layer throws. ApiError renders as the spec's envelope
// `{error: {code, message, details?}, request_id}`; FlatError carries one of the spec's flat exceptions verbatim.

export type ErrorDetails = Record<string, unknown>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetails,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export class FlatError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(typeof body.error === 'string' ? body.error : `flat error ${status}`);
    this.name = 'FlatError';
  }
}

export const notFound = (what = 'Resource'): ApiError => new ApiError(404, 'not_found', `${what} not found`);

/** Missing, malformed, revoked or environment-mismatched credential: always the same bare body. */
export const unauthorized = (challenge = 'Bearer'): FlatError =>
  new FlatError(401, { error: 'unauthorized' }, { 'WWW-Authenticate': challenge });

export const forbiddenScope = (scope: string): FlatError =>
  new FlatError(403, { error: 'forbidden', message: `This key lacks the "${scope}" scope`, status: 403 });

export const insufficientRole = (required: string): FlatError =>
  new FlatError(403, { error: 'insufficient_role', required });

export const projectResolutionFailed = (): FlatError =>
  new FlatError(500, { error: 'project_resolution_failed' });
