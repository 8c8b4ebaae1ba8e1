// A money-moving catalog tool on the wire, for the spend attempt's dispatch and status steps: the call sent
// through the connection with the attempt's idempotency key as `Idempotency-Key`, and the provider asked
// what became of that key, both read as the tool's catalog money block says. Only a provider's own answer
// refuses a payment; no answer, a 5xx or a timeout is ProviderUnavailable, which the attempt settles by
// asking for the key's status, never by releasing money that may have left.
import { catalogServer, type CatalogMoney, type CatalogServer } from '../../domain/providers/catalog';
import type { Tenant } from '../../domain/providers/connections';
import { atPointer } from '../../domain/spend/provider-money';
import type { Dispatch, DispatchStatus, ProviderToolSpend } from '../../contracts/spend';
import type { Environment } from '../../domain/tenancy/api-key-format';
import { OAuthGrantRefused } from '../auth/oauth-refresh';
import { ProviderUnavailable } from '../payments/provider';
import { ProxyRefused, type ProxyAnswer } from '../proxy/proxy-execute';
import { UpstreamUnreachable } from '../upstream/send';
import { sendToProvider, type ToolDispatchDeps } from './dispatch';

export interface MoneyToolCall {
  tenant: Tenant;
  environment: Environment;
  call: ProviderToolSpend;
  idempotencyKey: string;
}

function jsonOf(answer: ProxyAnswer): unknown {
  try {
    return JSON.parse(answer.body.toString('utf8'));
  } catch {
    return null;
  }
}

function moneyTool(call: ProviderToolSpend): { server: CatalogServer; money: CatalogMoney } {
  const server = catalogServer(call.serverId);
  const money = server?.tools.find((tool) => tool.name === call.tool)?.money;
  if (!server || !money) throw new Error(`${call.serverId}.${call.tool} is not a catalog money tool`);
  return { server, money };
}

/** A provider's answer that is its word on the payment (a 2xx, or a 4xx other than noWord's). */
function readAnswer(
  money: CatalogMoney,
  status: number,
  body: unknown,
  key: string,
): Exclude<Dispatch, { status: 'unreachable' }> {
  if (status >= 200 && status < 300) {
    const id = atPointer(body, money.payment_id);
    // Money moved even when the answer names no id: the key is then what the ledger refers to.
    return {
      status: 'succeeded',
      paymentId: typeof id === 'string' || typeof id === 'number' ? String(id) : key,
    };
  }
  if (status === 401 || status === 403)
    return {
      status: 'refused',
      code: 'credential_rejected',
      message: 'The provider refused the stored credential',
    };
  const code = atPointer(body, money.refusal_code);
  const message = atPointer(body, money.refusal_code.replace(/\/[^/]+$/, '/message'));
  return {
    status: 'refused',
    code: typeof code === 'string' && code ? code : 'provider_refused',
    message: typeof message === 'string' ? message : `The provider answered ${status}`,
  };
}

// 409 and 425 are a key still being worked on (idempotency conflicts): the key's status says how it ended.
const noWord = (status: number) => status >= 500 || [408, 409, 425, 429].includes(status);

/** Sends the call; a refusal the proxy makes itself (nothing was sent) is a refusal too. */
export async function sendMoneyTool(deps: ToolDispatchDeps, request: MoneyToolCall): Promise<Dispatch> {
  const { server, money } = moneyTool(request.call);
  let answer: ProxyAnswer | null;
  try {
    answer = await sendToProvider(deps, request.tenant, request.environment, server, {
      method: 'POST',
      path: `/tools/${request.call.tool}`,
      headers: { 'content-type': 'application/json', 'idempotency-key': request.idempotencyKey },
      body: Buffer.from(JSON.stringify(request.call.arguments)),
    });
  } catch (error) {
    if (error instanceof ProxyRefused) return { status: 'refused', code: error.code, message: error.message };
    if (error instanceof OAuthGrantRefused)
      return {
        status: 'refused',
        code: 'credential_rejected',
        message: 'The provider refused the stored grant',
      };
    if (error instanceof UpstreamUnreachable) throw new ProviderUnavailable(error.message);
    throw error;
  }
  if (!answer)
    return { status: 'refused', code: 'not_connected', message: `${server.name} has no active connection` };
  if (noWord(answer.status))
    throw new ProviderUnavailable(`${server.name} answered ${answer.status}`, answer.status);
  return readAnswer(money, answer.status, jsonOf(answer), request.idempotencyKey);
}

/**
 * What the provider says became of the key: null when it never received it. No answer, or a status the
 * provider cannot give (5xx, still processing, a connection gone), is `uncertain`: the money stays held.
 */
export async function moneyToolStatus(
  deps: ToolDispatchDeps,
  request: MoneyToolCall,
): Promise<DispatchStatus | null> {
  const { server, money } = moneyTool(request.call);
  let answer: ProxyAnswer | null;
  try {
    answer = await sendToProvider(deps, request.tenant, request.environment, server, {
      method: 'GET',
      path: money.status.path.replace('{idempotency_key}', encodeURIComponent(request.idempotencyKey)),
      headers: {},
      body: Buffer.alloc(0),
    });
  } catch (error) {
    if (
      error instanceof ProxyRefused ||
      error instanceof OAuthGrantRefused ||
      error instanceof UpstreamUnreachable
    )
      return { status: 'uncertain', message: error.message };
    throw error;
  }
  if (!answer) return { status: 'uncertain', message: `${server.name} has no active connection to ask` };
  if (answer.status === 404) return null;
  const found = jsonOf(answer) as { state?: unknown; result?: unknown } | null;
  if (answer.status !== 200 || (found?.state !== 'completed' && found?.state !== 'refused'))
    return { status: 'uncertain', message: `${server.name} cannot say yet (${answer.status})` };
  // The send's own answer, as it would have come: a completed one is read as a 2xx, a refused one as a 4xx.
  return readAnswer(money, found.state === 'completed' ? 200 : 422, found.result, request.idempotencyKey);
}
