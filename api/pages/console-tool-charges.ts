// The console's section of held tool charges: each paid call whose upstream answer never came, with the
// price it holds and a resolve form (succeeded or failed, from the tenant upstream's records). Rendering only.
import type { ChargeListRow } from '../../domain/tool-servers/charge-list';
import { chargeId } from '../../domain/tool-servers/charge-resolution';
import { escapeHtml as e } from './console-layout';

export function heldChargeRow(c: ChargeListRow, csrf: string, amount: string): string {
  const id = chargeId(c.seq);
  return `<tr id="charge-${e(id)}" data-org="${e(c.server_org_id)}">
<td><code>${e(id)}</code><br><span class="muted">attempt <code>${e(c.attempt_id)}</code></span></td>
<td class="tool">${e(c.tool_name)}<br><span class="muted">server <code>${e(c.server_id)}</code> org <code>${e(c.server_org_id)}</code></span></td>
<td class="amount">${e(amount)}</td><td><span class="muted">project</span> <code>${e(c.project_id)}</code></td>
<td>${e(c.uncertain_at ?? c.created_at)}</td>
<td><form method="post" action="/console/orgs/${encodeURIComponent(c.server_org_id)}/tool-charges/${encodeURIComponent(id)}/resolve">
<input type="hidden" name="csrf" value="${e(csrf)}">
<button type="submit" class="primary" name="outcome" value="succeeded">Succeeded: debit</button>
<button type="submit" name="outcome" value="failed">Failed: release</button>
</form></td></tr>`;
}

export const HELD_CHARGE_HEAD = ['Charge', 'Tool', 'Held', 'Caller', 'Uncertain since', 'Resolve'];
