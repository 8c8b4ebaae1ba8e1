// A catalog provider tool that moves money (pix_send, ted_send, …), called in a session: one wallet spend
// attempt of the attempt engine. The caller names the wallet (and, to make the call idempotent, the
// attempt) in the reserved `gateway_payment` argument; the amount and currency come from the call's own
// arguments as the tool's catalog money block says. The attempt's workflow holds, sends the call through
// the project's connection under the attempt's idempotency key, then debits or releases
// (providers/tools/money.ts); policy, approval holds and replays by attempt_id are the engine's.
import { sortableId } from '../../domain/ids';
import { currentConnection } from '../../domain/providers/connections';
import type { SessionRow } from '../../domain/sessions/sessions';
import { openToolCall } from '../../domain/sessions/tool-calls';
import { moneyOfCall } from '../../domain/spend/provider-money';
import type { SpendInput } from '../../contracts/spend';
import { PAYMENT_ARGUMENT, splitPayment } from '../../domain/tool-servers/tool-specs';
import type { ToolSpec } from '../../domain/tools/tool-spec';
import { getWallet } from '../../domain/wallets/wallets';
import { providerFailureError } from '../../providers/provider-failure';
import type { AppDeps } from '../deps';
import type { Principal } from '../principal';
import { recordAttemptCall } from './attempt-call';
import type { ToolCallAnswer } from './tool-call-answer';
import { finishedReply, runSpendAttempt } from './wallet-execute';

export async function providerMoneyCall(
  deps: AppDeps,
  principal: Principal,
  session: SessionRow,
  tool: ToolSpec,
  args: Record<string, unknown>,
  requestId: string,
): Promise<ToolCallAnswer> {
  if (tool.dispatch.kind !== 'provider' || !tool.dispatch.tool.money)
    throw new Error(`${tool.name} is not a catalog money tool`);
  const { server, tool: catalogTool } = tool.dispatch;
  // What is left once gateway_payment is taken off is what the provider sees.
  const { payment, upstream } = splitPayment(args);
  const money = moneyOfCall(catalogTool.money!, upstream);
  const attemptId = payment.attempt_id ?? sortableId('att');
  // What the attempt's fingerprint binds: the tool and its exact arguments (the wallet is bound beside them).
  const request = { tool: tool.name, arguments: upstream, attempt_id: attemptId };
  const opened = await openToolCall(deps.db, {
    orgId: principal.orgId,
    projectId: principal.projectId,
    sessionId: session.id,
    serverId: tool.serverId,
    toolName: tool.name,
    input: { ...upstream, [PAYMENT_ARGUMENT]: { wallet_id: payment.wallet_id, attempt_id: attemptId } },
    attemptId,
    routing: { engine: 'wallet_execute', wallet_id: payment.wallet_id, provider: server.id },
  });
  return recordAttemptCall(deps, principal, opened, async () => {
    if (payment.attempt_id !== undefined) {
      const finished = await finishedReply(deps, principal, payment.wallet_id, attemptId, request);
      if (finished) return finished;
    }
    // Without a connection the call could never be sent: refused before anything is held.
    if (server.auth_type !== 'none') {
      const connection = await currentConnection(deps.db, principal, server.id);
      if (connection?.status !== 'active') throw providerFailureError({ kind: 'not_connected', server });
    }
    const wallet = await getWallet(deps.db, principal.orgId, principal.projectId, payment.wallet_id);
    const input: SpendInput = {
      orgId: principal.orgId,
      projectId: principal.projectId,
      environment: principal.environment,
      attemptId,
      walletId: wallet.id,
      agentId: wallet.agent_id ?? wallet.id,
      amountMinor: money.amountMinor.toString(),
      currency: money.currency,
      recipient: money.recipient,
      description: `${tool.name} in session ${session.id}`,
      // The session is the authority the agent spent under; the ledger entries name it.
      mandateId: session.id,
      purpose: null,
      preferredMethod: null,
      targetCurrency: null,
      metadata: { session_id: session.id, tool: tool.name },
      requestId,
      toolName: tool.name,
      providerTool: { serverId: server.id, tool: catalogTool.name, arguments: upstream },
    };
    return runSpendAttempt(deps, principal, wallet, request, input);
  });
}
