// The console's one overview page: pending approvals with their held call and a decide form each, held
// tool charges whose upstream answer never came with a resolve form each,
// stuck money attempts linked to their workflows in the Temporal UI, open reconciliation anomalies,
// recent wallet top-ups and webhook endpoints in error. Rendering only; the routes gather the rows.
import type { FailingEndpoint } from '../../domain/webhooks/failing-endpoints';
import type { OpenAnomaly } from '../../domain/reconciliation/open-anomalies';
import type { PendingApproval } from '../../domain/approvals/pending';
import type { StuckAttempt } from '../../domain/operations/stuck-attempts';
import { FAMILY_LABELS } from '../../contracts/attempt';
import type { ChargeListRow } from '../../domain/tool-servers/charge-list';
import type { OperatorTopup } from '../../domain/operations/topups';
import { HELD_CHARGE_HEAD, heldChargeRow } from './console-tool-charges';
import { TOPUP_HEAD, topupRow } from './console-topups';
import { escapeHtml as e, layout } from './console-layout';

export interface DashboardView {
  operator: string;
  csrf: string;
  orgId: string | null;
  stuckAfterMs: number;
  temporalUi: { url: string | undefined; namespace: string };
  approvals: PendingApproval[];
  stuck: StuckAttempt[];
  anomalies: OpenAnomaly[];
  endpoints: FailingEndpoint[];
  heldCharges: readonly ChargeListRow[];
  topups: readonly OperatorTopup[];
}

// Minor units per major unit for the currencies the gateway moves; anything else is shown in minor units.
const EXPONENTS: Record<string, number> = {
  BRL: 2,
  USD: 2,
  EUR: 2,
  MXN: 2,
  COP: 2,
  ARS: 2,
  CLP: 0,
  JPY: 0,
  USDC: 6,
};

export function formatMinor(amountMinor: string | bigint | null, currency: string | null): string {
  if (amountMinor === null || amountMinor === undefined) return '';
  const text = amountMinor.toString();
  const exponent = currency ? EXPONENTS[currency.toUpperCase()] : undefined;
  if (exponent === undefined || !/^-?\d+$/.test(text)) return `${text} minor ${currency ?? ''}`.trim();
  if (exponent === 0) return `${text} ${currency}`;
  const negative = text.startsWith('-');
  const digits = (negative ? text.slice(1) : text).padStart(exponent + 1, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -exponent)}.${digits.slice(-exponent)} ${currency}`;
}

function table(id: string, title: string, empty: string, head: string[], rows: string[]): string {
  const body =
    rows.length === 0
      ? `<p class="muted" id="${id}-empty">${e(empty)}</p>`
      : `<table><thead><tr>${head.map((h) => `<th>${e(h)}</th>`).join('')}</tr></thead><tbody>\n${rows.join('\n')}\n</tbody></table>`;
  return `<section id="${id}"><h2>${e(title)} (${rows.length})</h2>\n${body}</section>`;
}

function approvalRow(a: PendingApproval, view: DashboardView): string {
  const rule = [a.rule_name, a.rule_type ? `(${a.rule_type})` : ''].filter(Boolean).join(' ');
  return `<tr id="approval-${e(a.id)}" data-org="${e(a.org_id)}">
<td><code>${e(a.id)}</code><br><span class="muted">org <code>${e(a.org_id)}</code> project <code>${e(a.project_id ?? '')}</code> agent ${e(a.agent_id)}</span></td>
<td class="tool">${e(a.tool_name)}</td><td class="amount">${e(formatMinor(a.amount_minor, a.currency))}</td><td class="payee">${e(a.payee ?? '')}</td>
<td class="rule">${e(rule)}<br><span class="reason">${e(a.reason ?? '')}</span></td>
<td>${e(a.created_at)}<br><span class="muted">expires ${e(a.expires_at)}</span></td>
<td><form method="post" action="/console/orgs/${encodeURIComponent(a.org_id)}/approvals/${encodeURIComponent(a.id)}/decide">
<input type="hidden" name="csrf" value="${e(view.csrf)}">
<input type="text" name="reason" required maxlength="512" placeholder="Reason" aria-label="Reason for ${e(a.id)}">
<button type="submit" class="primary" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form></td></tr>`;
}

function workflowLink(s: { workflow_id: string }, view: DashboardView): string {
  const { url, namespace } = view.temporalUi;
  if (!url)
    return `<code>${e(s.workflow_id)}</code><br><span class="muted">TEMPORAL_UI_URL is unset; search WorkflowId there</span>`;
  const href = `${url}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(s.workflow_id)}`;
  return `<a class="workflow" href="${e(href)}" target="_blank" rel="noopener noreferrer">${e(s.workflow_id)}</a>`;
}

function stuckRow(s: StuckAttempt, view: DashboardView): string {
  return `<tr id="stuck-${e(s.attempt_id)}"><td><code>${e(s.attempt_id)}</code><br><span class="muted">org <code>${e(s.org_id)}</code> project <code>${e(s.project_id)}</code></span></td>
<td>${FAMILY_LABELS[s.family]}</td><td class="status">${e(s.status)}</td>
<td>${e([s.amount, s.currency].filter(Boolean).join(' '))}</td><td>${e(s.payee ?? '')}</td><td>${e(s.created_at)}</td><td>${workflowLink(s, view)}</td></tr>`;
}

function anomalyRow(a: OpenAnomaly): string {
  return `<tr id="anomaly-${e(a.id)}"><td><code>${e(a.id)}</code><br><span class="muted">org <code>${e(a.org_id)}</code> project <code>${e(a.project_id)}</code></span></td>
<td class="kind">${e(a.kind)}</td><td>${e(a.wallet_id ?? '')}</td><td>${e(formatMinor(a.amount_minor, a.currency))}</td><td><code>${e(a.external_ref ?? '')}</code></td><td>${e(a.detected_at)}</td></tr>`;
}

/** The receiver's URL without its query or credentials, which may carry a tenant's token. */
function endpointTarget(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '';
  }
}

function endpointRow(w: FailingEndpoint): string {
  return `<tr id="endpoint-${e(w.id)}"><td><code>${e(w.id)}</code> ${e(w.name)}<br><span class="muted">org <code>${e(w.org_id)}</code> project <code>${e(w.project_id)}</code></span></td>
<td>${e(w.event)}</td><td><code>${e(endpointTarget(w.webhook_url))}</code></td><td class="reason">${e(w.status_reason ?? '')}</td><td>${w.consecutive_dead}</td><td>${e(w.updated_at)}</td></tr>`;
}

export function dashboardPage(view: DashboardView): string {
  const minutes = Math.round((view.stuckAfterMs / 60_000) * 10) / 10;
  const filter = `<section id="filter"><form method="get" action="/console">
<label for="org">Organization</label> <input id="org" name="org" type="text" value="${e(view.orgId ?? '')}" placeholder="org_… (all when empty)">
<button type="submit">Filter</button>${view.orgId ? ' <a href="/console">Show all</a>' : ''}</form></section>`;
  return layout(
    'Operator console',
    [
      filter,
      table(
        'approvals',
        'Pending approvals',
        'No approval is waiting for a decision.',
        ['Approval', 'Tool', 'Amount', 'Payee', 'Rule and reason', 'Created / expires', 'Decide'],
        view.approvals.map((a) => approvalRow(a, view)),
      ),
      table(
        'tool-charges',
        'Tool charges with an unknown outcome',
        'No paid tool call is waiting for its outcome.',
        HELD_CHARGE_HEAD,
        view.heldCharges.map((c) => heldChargeRow(c, view.csrf, formatMinor(c.price_minor, c.currency))),
      ),
      table(
        'stuck',
        `Attempts processing for more than ${minutes} min`,
        'No money attempt is stuck.',
        ['Attempt', 'Kind', 'Status', 'Amount', 'Payee', 'Started', 'Workflow'],
        view.stuck.map((s) => stuckRow(s, view)),
      ),
      table(
        'anomalies',
        'Open reconciliation anomalies',
        'No open anomaly.',
        ['Anomaly', 'Kind', 'Wallet', 'Amount', 'Reference', 'Detected'],
        view.anomalies.map(anomalyRow),
      ),
      table(
        'topups',
        'Recent wallet top-ups',
        'No wallet top-up yet.',
        TOPUP_HEAD,
        view.topups.map((t) => topupRow(t, formatMinor(t.amount_minor, t.currency), workflowLink(t, view))),
      ),
      table(
        'endpoints',
        'Webhook endpoints in error',
        'No endpoint is in error.',
        ['Endpoint', 'Event', 'Receiver', 'Why', 'Dead in a row', 'Since'],
        view.endpoints.map(endpointRow),
      ),
    ].join('\n'),
    { operator: view.operator, csrf: view.csrf },
  );
}
