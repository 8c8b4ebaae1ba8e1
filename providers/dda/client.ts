// The DDA provider adapter: registers a payer document under the gateway's clientRequestId (the provider
// answers the same registration for the same id, so a retry is safe), deletes a registration, and lists
// the boletos a registered document owes. The provider's answers are sorted into accepted, refused
// (its business "no") and unavailable (no answer, 5xx, 429: worth retrying).
import { callProvider, DispatchUncertain } from '../rails/rail';

export class DdaRefused extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'DdaRefused';
  }
}

export class DdaUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DdaUnavailable';
  }
}

export interface DdaProviderBoleto {
  digitableLine: string;
  amount: string;
  dueDate: string;
  beneficiaryName: string | null;
  status: string;
}

export interface DdaProvider {
  register(input: {
    document: string;
    clientName: string | null;
    clientRequestId: string;
    callbackUrl: string;
  }): Promise<void>;
  /** Ends a registration; one the provider does not know is already ended. */
  remove(clientRequestId: string): Promise<void>;
  boletos(document: string, fromDate: string, toDate: string): Promise<DdaProviderBoleto[]>;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

async function call(url: string, init: RequestInit, timeoutMs: number) {
  try {
    return await callProvider(url, init, timeoutMs);
  } catch (error) {
    if (error instanceof DispatchUncertain) throw new DdaUnavailable(error.message);
    throw error;
  }
}

function refused(status: number, body: Record<string, unknown>): DdaRefused {
  return new DdaRefused(status, text(body.code) || `http_${status}`, text(body.message) || 'refused');
}

export function ddaProvider(options: { baseUrl: string; timeoutMs: number }): DdaProvider {
  const base = `${options.baseUrl}/dda/v1`;
  return {
    async register(input) {
      const { status, body } = await call(
        `${base}/subscriptions`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            document: input.document,
            clientName: input.clientName,
            clientRequestId: input.clientRequestId,
            callbackUrl: input.callbackUrl,
          }),
        },
        options.timeoutMs,
      );
      if (status !== 200 && status !== 201 && status !== 202) throw refused(status, body);
    },
    async remove(clientRequestId) {
      const { status, body } = await call(
        `${base}/subscriptions/${encodeURIComponent(clientRequestId)}`,
        { method: 'DELETE' },
        options.timeoutMs,
      );
      if (status === 404 || (status >= 200 && status < 300)) return;
      throw refused(status, body);
    },
    async boletos(document, fromDate, toDate) {
      const query = new URLSearchParams({ document, initialDate: fromDate, finalDate: toDate });
      const { status, body } = await call(`${base}/boletos?${query}`, { method: 'GET' }, options.timeoutMs);
      if (status !== 200) throw refused(status, body);
      const items = Array.isArray(body.items) ? (body.items as Array<Record<string, unknown>>) : [];
      return items.map((item) => ({
        digitableLine: text(item.digitableLine),
        amount: text(item.amount),
        dueDate: text(item.dueDate),
        beneficiaryName: text(item.beneficiaryName) || null,
        status: text(item.status),
      }));
    },
  };
}
