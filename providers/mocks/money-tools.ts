// What every auth-type mock does with a tool call that moves money (a `POST /tools/<tool>` carrying an
// `Idempotency-Key`): the provider's side of an idempotent payment. A key is taken once (money moves
// once) and every later send of it gets the same answer; `GET /tools/<tool>/requests/<key>` tells what
// became of a key (404 never received, else `{state, result}`). Tests make the provider refuse the next
// new payment, take new payments but never answer (or answer 500 after taking them), or lose them.
import type http from 'node:http';
import type { InboundRequest } from './http-kit';

export interface MoneyRequest {
  tool: string;
  key: string;
  arguments: unknown;
  state: 'completed' | 'refused';
  /** The answer every send of this key gets (unless the key is one the provider stays silent on). */
  answer: { status: number; body: unknown };
  /** How many sends of this key arrived. */
  sends: number;
  silent: 'hang' | 500 | null;
}

/** How the provider treats new keys: normally, refusing, taking them silently, or losing them (503). */
export type MoneyMode =
  | { kind: 'normal' }
  | { kind: 'refuse'; status: number; code: string; message: string }
  | { kind: 'take_silently'; answer: 'hang' | 500 }
  | { kind: 'lose' };

export interface MoneyTools {
  /** Every key received, in order. */
  requests(): MoneyRequest[];
  /** The mode for new keys until it is set again; `refuse` applies to the next new key only. */
  set(mode: MoneyMode): void;
  /** Status lookups answered so far. */
  lookups(): number;
}

const SEND = /^\/tools\/([a-z][a-z0-9_]*)$/;
const STATUS = /^\/tools\/([a-z][a-z0-9_]*)\/requests\/([^/?]+)$/;

export function moneyTools(send: (res: http.ServerResponse, status: number, body: unknown) => void) {
  const byKey = new Map<string, MoneyRequest>();
  let mode: MoneyMode = { kind: 'normal' };
  let lookups = 0;
  let n = 0;

  /** Answers a money request; false when the request is not one. */
  const handle = (request: InboundRequest, path: string, res: http.ServerResponse): boolean => {
    const bare = path.split('?')[0]!;
    const status = request.method === 'GET' ? STATUS.exec(bare) : null;
    if (status) {
      lookups++;
      const found = byKey.get(decodeURIComponent(status[2]!));
      if (!found || found.tool !== status[1]) send(res, 404, { error: { code: 'not_found' } });
      else send(res, 200, { state: found.state, result: found.answer.body });
      return true;
    }
    const key = request.headers['idempotency-key'];
    const sent = request.method === 'POST' ? SEND.exec(bare) : null;
    if (!sent || typeof key !== 'string') return false;
    let found = byKey.get(key);
    if (!found) {
      if (mode.kind === 'lose') {
        send(res, 503, { error: { code: 'unavailable', message: 'Try again later' } });
        return true;
      }
      let args: unknown = null;
      try {
        args = JSON.parse(request.body.toString('utf8'));
      } catch {
        send(res, 400, { error: { code: 'invalid_json', message: 'The body is not JSON' } });
        return true;
      }
      const refusal = mode.kind === 'refuse' ? mode : null;
      found = {
        tool: sent[1]!,
        key,
        arguments: args,
        state: refusal ? 'refused' : 'completed',
        answer: refusal
          ? { status: refusal.status, body: { error: { code: refusal.code, message: refusal.message } } }
          : { status: 200, body: { id: `pay_${sent[1]}_${++n}`, status: 'completed', tool: sent[1] } },
        sends: 0,
        silent: mode.kind === 'take_silently' ? mode.answer : null,
      };
      if (refusal) mode = { kind: 'normal' };
      byKey.set(key, found);
    }
    found.sends++;
    // A silent key is never answered: the connection stays open until the caller gives up.
    if (found.silent === 'hang') return true;
    if (found.silent === 500) send(res, 500, { error: { code: 'internal', message: 'Something broke' } });
    else send(res, found.answer.status, found.answer.body);
    return true;
  };

  const controls: MoneyTools = {
    requests: () => [...byKey.values()],
    set: (next) => {
      mode = next;
    },
    lookups: () => lookups,
  };
  return { handle, controls };
}
