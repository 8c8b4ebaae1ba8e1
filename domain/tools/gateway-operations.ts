// The gateway's own tools that are not attempts (`wallet.balances`, `approvals.status`, `wallet.transfer`
// (one ledger transaction between two wallets of the project, with no provider in it), and the payment
// link tools), run where the call is made: by the tool-call path, and by the approval replay of a call a
// rule held. What they need beyond the database comes in as ports, so either caller can supply it.
import { getApproval } from '../approvals/approvals';
import { approvalView } from '../approvals/view';
import type { ToolCallOutcome } from '../sessions/tool-calls';
import { balanceView, transferView } from '../wallets/views';
import { getWallet, walletBalances } from '../wallets/wallets';
import type { DatabasePool } from '../../runtime/database';
import type { PaymentLinkCreateBody } from '../../schema/http/payment-links';
import type { SchemaValue } from '../../schema/http/json-schema';
import { createPaymentLink, linkCreateRequest } from '../payment-links/create';
import { listLinks } from '../payment-links/links';
import { presentLink } from '../payment-links/present';
import type { ProvisionWallet } from '../payment-links/x402/wallets';
import { transfer, transferAmount } from '../wallets/transfers';
import { GATEWAY_TOOLS, type GatewayOperation, type WalletTransferInput } from './gateway-tools';

/** What the link tools need beyond the database: the wallet provider and the gateway's public origin. */
export interface GatewayPorts {
  provisionWallet: ProvisionWallet;
  origin: string;
}

interface Scope {
  orgId: string;
  projectId: string;
  environment: 'live' | 'test';
}

/** The operation a gateway tool name stands for, when the gateway runs it itself (not an attempt). */
export function gatewayOperationOf(toolName: string): GatewayOperation | undefined {
  const tool = GATEWAY_TOOLS.find((t) => t.name === toolName);
  return tool && !tool.attempt ? tool.operation : undefined;
}

export async function runGatewayOperation(
  db: DatabasePool,
  scope: Scope,
  operation: GatewayOperation,
  args: Record<string, unknown>,
  ports: GatewayPorts,
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
  if (operation === 'wallet_transfer') {
    // The tool-call path has checked args against the tool's input schema.
    const body = args as SchemaValue<typeof WalletTransferInput>;
    const input = {
      fromWalletId: body.wallet_id,
      toWalletId: body.to_wallet_id,
      currency: body.currency,
      toCurrency: body.to_currency ?? body.currency,
      amount: transferAmount(body.amount_minor),
      externalRef: body.external_ref ?? null,
      metadata: body.metadata ?? {},
    };
    return { ok: true, errorCode: null, output: transferView(input, await transfer(db, scope, input)) };
  }
  if (operation === 'payment_link_create') {
    const request = linkCreateRequest(args as PaymentLinkCreateBody, scope.environment);
    const link = await createPaymentLink(db, scope, request, ports.provisionWallet);
    return { ok: true, errorCode: null, output: presentLink(link, ports.origin) };
  }
  if (operation === 'payment_link_list') {
    const links = await listLinks(db, scope);
    return {
      ok: true,
      errorCode: null,
      output: { payment_links: links.map((row) => presentLink(row, ports.origin)) },
    };
  }
  throw new Error(`${operation} is an attempt, not an operation the gateway runs as a tool`);
}
