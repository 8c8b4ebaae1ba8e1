// The gateway's own read tools (`wallet.balances`, `approvals.status`), run where the call is made:
// by the tool-call path directly, and by the approval replay of a call a rule held for a person.
import { getApproval } from '../approvals/approvals';
import { approvalView } from '../approvals/view';
import type { ToolCallOutcome } from '../sessions/tool-calls';
import { balanceView } from '../wallets/views';
import { getWallet, walletBalances } from '../wallets/wallets';
import type { CommonQueryMethods } from 'slonik';
import { GATEWAY_TOOLS, type GatewayOperation } from './gateway-tools';

interface Scope {
  orgId: string;
  projectId: string;
}

/** The read operation a gateway tool name stands for; undefined for a paying tool or another server's. */
export function gatewayReadOf(toolName: string): GatewayOperation | undefined {
  const tool = GATEWAY_TOOLS.find((t) => t.name === toolName);
  return tool && !tool.movesMoney ? tool.operation : undefined;
}

export async function runGatewayRead(
  db: CommonQueryMethods,
  scope: Scope,
  operation: GatewayOperation,
  args: Record<string, unknown>,
): Promise<ToolCallOutcome> {
  if (operation === 'wallet_balances') {
    const wallet = await getWallet(db, scope.orgId, scope.projectId, String(args.wallet_id));
    const balances = await walletBalances(db, scope.orgId, scope.projectId, [wallet.id]);
    return {
      ok: true,
      errorCode: null,
      output: { wallet_id: wallet.id, status: wallet.status, balances: balances.map(balanceView) },
    };
  }
  if (operation === 'approval_status') {
    const view = approvalView(await getApproval(db, scope.orgId, scope.projectId, String(args.approval_id)));
    return {
      ok: true,
      errorCode: null,
      output: {
        approval_id: view.id,
        approval_status: view.status,
        tool_name: view.tool_name,
        created_at: view.created_at,
        expires_at: view.expires_at,
        decided_at: view.decided_at,
        decided_by: view.decided_by,
        decision_reason: view.decision_reason,
        executed_at: view.executed_at,
        execution_result: view.execution_result,
      },
    };
  }
  throw new Error(`${operation} is not a read the gateway runs as a tool`);
}
