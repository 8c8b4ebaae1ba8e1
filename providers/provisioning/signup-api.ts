// A provider's sandbox sign-up API, as the catalog's `signup_api` descriptor names it (`signup_path` under
// the sandbox base URL): create a sign-up (the provider may email a verification code), verify the code,
// then issue an API key. Each create carries an Idempotency-Key, so a retried call finds its first answer.
//
//   POST {path}                        {email, company_name}  → 201 {id, status: pending_verification|verified,
//                                                                     verification?: {channel, sent_to, expires_in}}
//   POST {path}/{id}/verification      {code}                 → 200 {id, status: verified}
//                                                               422 {error: {code: code_invalid}}, 410 {error: {code: code_expired}}
//   POST {path}/{id}/api_keys          {}                     → 201 {id, secret, livemode: false}
//
// A 4xx other than those is the provider refusing (SignupRefused); no answer or a 5xx is SignupUnavailable,
// and an answer outside this protocol is SignupProtocolError.

export interface SignupCreated {
  accountId: string;
  verification: { sentTo: string; expiresInSeconds: number } | null;
}

export type CodeVerdict = 'accepted' | 'invalid' | 'expired';

export class SignupRefused extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
  ) {
    super(message);
    this.name = 'SignupRefused';
  }
}

export class SignupUnavailable extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
    this.name = 'SignupUnavailable';
  }
}

export class SignupProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SignupProtocolError';
  }
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

const record = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
const text = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

export function signupApi(options: { baseUrl: string; path: string; timeoutMs: number }) {
  const base = `${options.baseUrl}${options.path}`;
  const post = async (url: string, body: unknown, idempotencyKey?: string): Promise<Answer> => {
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(options.timeoutMs),
        redirect: 'error',
      });
    } catch (error) {
      throw new SignupUnavailable(`the provider did not answer: ${(error as Error).message}`, null);
    }
    const parsed: unknown = await response.json().catch(() => null);
    if (response.status >= 500 || response.status === 429)
      throw new SignupUnavailable(`the provider answered ${response.status}`, response.status);
    return { status: response.status, body: record(parsed) };
  };
  const refusal = (answer: Answer): SignupRefused => {
    const error = record(answer.body.error);
    const code = text(error.code) ? error.code : 'refused';
    const message = text(error.message) ? error.message : `the provider refused with ${answer.status}`;
    return new SignupRefused(message, answer.status, code);
  };

  return {
    async createSignup(input: {
      email: string;
      companyName: string;
      idempotencyKey: string;
    }): Promise<SignupCreated> {
      const answer = await post(
        base,
        { email: input.email, company_name: input.companyName },
        input.idempotencyKey,
      );
      if (answer.status >= 400) throw refusal(answer);
      const { id, status } = answer.body;
      if (!text(id) || (status !== 'pending_verification' && status !== 'verified'))
        throw new SignupProtocolError('the sign-up answer names no account or no known status');
      if (status === 'verified') return { accountId: id, verification: null };
      const verification = record(answer.body.verification);
      const expiresIn = verification.expires_in;
      if (!text(verification.sent_to) || typeof expiresIn !== 'number' || !(expiresIn > 0))
        throw new SignupProtocolError(
          'the sign-up awaits a code but says not where it went or how long it holds',
        );
      return { accountId: id, verification: { sentTo: verification.sent_to, expiresInSeconds: expiresIn } };
    },

    async verifyCode(accountId: string, code: string): Promise<CodeVerdict> {
      const answer = await post(`${base}/${encodeURIComponent(accountId)}/verification`, { code });
      if (answer.status === 200 && answer.body.status === 'verified') return 'accepted';
      const errorCode = record(answer.body.error).code;
      if (answer.status === 422 && errorCode === 'code_invalid') return 'invalid';
      if (answer.status === 410 && errorCode === 'code_expired') return 'expired';
      if (answer.status >= 400) throw refusal(answer);
      throw new SignupProtocolError('the verification answer is outside the protocol');
    },

    async issueApiKey(accountId: string, idempotencyKey: string): Promise<string> {
      const answer = await post(`${base}/${encodeURIComponent(accountId)}/api_keys`, {}, idempotencyKey);
      if (answer.status >= 400) throw refusal(answer);
      if (!text(answer.body.secret)) throw new SignupProtocolError('the provider issued no key');
      return answer.body.secret;
    },
  };
}

export type SignupApi = ReturnType<typeof signupApi>;
