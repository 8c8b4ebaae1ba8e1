// The console's section of wallet top-ups: the newest Pix charges and USDC deposits with their status,
// the provider's reference of a credit and the workflow holding each. Rendering only.
import type { OperatorTopup } from '../../domain/operations/topups';
import { escapeHtml as e } from './console-layout';

export const TOPUP_HEAD = [
  'Top-up',
  'Wallet',
  'Method',
  'Amount',
  'Status',
  'Reference',
  'Created',
  'Workflow',
];

export function topupRow(t: OperatorTopup, amount: string, workflow: string): string {
  const status = t.failure_reason ? `${t.status} (${t.failure_reason})` : t.status;
  return `<tr id="topup-${e(t.id)}" data-org="${e(t.org_id)}"><td><code>${e(t.id)}</code><br><span class="muted">org <code>${e(t.org_id)}</code> project <code>${e(t.project_id)}</code> ${e(t.environment)}</span></td>
<td><code>${e(t.wallet_id)}</code></td><td>${e(t.method)}</td><td class="amount">${e(amount)}</td><td class="status">${e(status)}</td>
<td><code>${e(t.provider_ref ?? '')}</code></td><td>${e(t.created_at)}</td><td>${workflow}</td></tr>`;
}
