// Which redirect URIs a client may register (OAuth 2.1 2.3.1, RFC 8252 7.3): absolute https URLs, or
// http only on a loopback host. No fragments, no user info, no characters a browser would reinterpret.
// Authorization requests then match the registered string exactly.

export const MAX_REDIRECT_URI_LENGTH = 2000;

// Printable ASCII minus characters that parsers disagree on or that never belong in a URL unescaped.
const URL_CHARACTERS = /^[\x21-\x7e]+$/;
const AMBIGUOUS = /["<>\\^`{|}]/;

export function isLoopbackHost(hostname: string): boolean {
  return (
    hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}

/** Why a redirect URI is refused, or null when it may be registered. */
export function redirectUriProblem(value: unknown): string | null {
  if (typeof value !== 'string' || value.length === 0) return 'must be a non-empty string';
  if (value.length > MAX_REDIRECT_URI_LENGTH) return `must be at most ${MAX_REDIRECT_URI_LENGTH} characters`;
  if (!URL_CHARACTERS.test(value) || AMBIGUOUS.test(value))
    return 'contains characters that are not allowed in a URL';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (value.includes('#')) return 'must not contain a fragment';
  if (url.username !== '' || url.password !== '') return 'must not contain user information';
  if (url.protocol === 'https:') return url.hostname === '' ? 'must name a host' : null;
  if (url.protocol === 'http:')
    return isLoopbackHost(url.hostname)
      ? null
      : 'must use https (http is allowed only for localhost, 127.0.0.0/8 and [::1])';
  return 'must use https (http is allowed only for loopback hosts)';
}

/** Where an authorization response goes: the registered URI with its own query kept, plus our parameters. */
export function redirectWith(redirectUri: string, params: Record<string, string | null>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params))
    if (value !== null) url.searchParams.append(name, value);
  return url.toString();
}

/** The origin a consent form may navigate to, for the page's Content-Security-Policy form-action. */
export function redirectOrigin(redirectUri: string): string {
  return new URL(redirectUri).origin;
}
