// The OAuth consent page and its error page: plain server-rendered HTML, every value escaped, no
// script at all, styles pinned by hash in a Content-Security-Policy that also forbids framing.
import { createHash } from 'node:crypto';
import type { Scope } from '../../contracts/scopes';
import { GRANTABLE_SCOPES } from '../../contracts/scopes';
import { escapeHtml, htmlPage } from './html';

const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'sessions:create': 'Create sessions on provider servers',
  'sessions:read': 'List and read sessions',
  'tools:execute': 'Run published tools, including tools that move money',
  'servers:read': 'Browse the server catalog',
  'projects:settings': 'Read and change project settings',
  'proxy:execute': 'Send raw requests to connected providers with your stored credentials',
  'consents:write': 'Start consent requests for consumers',
};

const STYLE = `
body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;background:#f4f5f7;color:#1d2330;margin:0}
main{max-width:34rem;margin:3rem auto;background:#fff;border-radius:12px;padding:2rem;box-shadow:0 2px 12px rgba(0,0,0,.08)}
h1{font-size:1.35rem;margin:0 0 .75rem}
.muted{color:#5b6475;font-size:.92rem}
.warn{background:#fff7e6;border:1px solid #f0c36d;border-radius:8px;padding:.6rem .8rem;font-size:.92rem}
.error{background:#fdecec;border:1px solid #e39a9a;border-radius:8px;padding:.6rem .8rem;color:#8a1c1c}
ul{padding-left:1.2rem}li{margin:.3rem 0}code{font-size:.9rem;background:#f0f1f4;padding:0 .25rem;border-radius:4px;word-break:break-all}
label{display:block;font-weight:600;margin:1.25rem 0 .4rem}
input[type=password]{box-sizing:border-box;width:100%;padding:.6rem;font:inherit;border:1px solid #b9bfcc;border-radius:8px}
.actions{display:flex;gap:.75rem;margin-top:1.25rem}
button{font:inherit;padding:.6rem 1.2rem;border-radius:8px;border:1px solid #b9bfcc;background:#fff;cursor:pointer}
button.primary{background:#2451d6;border-color:#2451d6;color:#fff}
`;
const STYLE_HASH = `sha256-${createHash('sha256').update(STYLE).digest('base64')}`;

/** Headers for every OAuth page; `formTargets` are the origins the consent form may end up at. */
export function pageHeaders(formTargets: string[] = []): Record<string, string> {
  const formAction = ["'self'", ...formTargets].join(' ');
  return {
    'Content-Security-Policy': `default-src 'none'; style-src '${STYLE_HASH}'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
  };
}

function layout(title: string, content: string): string {
  return htmlPage({ title, head: `<style>${STYLE}</style>`, content });
}

export interface ConsentView {
  clientName: string | null;
  redirectUri: string;
  /** Null when the client named no scope: the grant takes what the pasted key holds. */
  scopes: readonly Scope[] | null;
  /** The authorization request, carried through the form unchanged. */
  fields: Record<string, string | null>;
  error?: string;
}

function scopeList(scopes: readonly Scope[] | null): string {
  const items = (scopes ?? GRANTABLE_SCOPES)
    .map((scope) => `<li><code>${escapeHtml(scope)}</code> ${escapeHtml(SCOPE_DESCRIPTIONS[scope])}</li>`)
    .join('\n');
  const intro =
    scopes === null
      ? '<p>It asks for everything the API key you paste allows, which can include:</p>'
      : '<p>It asks for these permissions:</p>';
  return `${intro}\n<ul id="scopes">\n${items}\n</ul>`;
}

export function consentPage(view: ConsentView): string {
  const name = view.clientName ?? 'An unnamed application';
  const hidden = Object.entries(view.fields)
    .filter((entry): entry is [string, string] => entry[1] !== null)
    .map(([field, value]) => `<input type="hidden" name="${escapeHtml(field)}" value="${escapeHtml(value)}">`)
    .join('\n');
  const error = view.error ? `<p class="error" role="alert" id="error">${escapeHtml(view.error)}</p>` : '';
  return layout(
    `Authorize ${name}`,
    `<h1>Authorize <span id="client-name">${escapeHtml(name)}</span></h1>
<p><strong>${escapeHtml(name)}</strong> wants to act on a project of your Agent Payments Gateway account.</p>
<p class="warn">The application chose its own name. Continue only if you started this from it.</p>
${scopeList(view.scopes)}
<p class="muted">After you decide, you will be sent to <code id="redirect-uri">${escapeHtml(view.redirectUri)}</code>.
Access tokens last one hour and are renewed for up to 30 days of use; revoking the key ends them all.</p>
${error}
<form method="post" action="/oauth/authorize">
${hidden}
<label for="api_key">Paste an API key of the project to connect</label>
<input id="api_key" name="api_key" type="password" autocomplete="off" spellcheck="false" required placeholder="csk_live_… or csk_test_…">
<p class="muted">The key itself is not shared with the application: it receives its own tokens, limited to the permissions above and to what the key allows.</p>
<div class="actions">
<button type="submit" class="primary" name="decision" value="approve" id="approve">Approve</button>
<button type="submit" name="decision" value="deny" id="deny" formnovalidate>Deny</button>
</div>
</form>`,
  );
}

export function errorPage(code: string, description: string): string {
  return layout(
    'Authorization request refused',
    `<h1>This authorization request cannot continue</h1>
<p class="error" role="alert" id="error"><code>${escapeHtml(code)}</code> ${escapeHtml(description)}</p>
<p class="muted">Nothing was granted. Return to the application and start again; if this keeps happening, its OAuth settings need fixing.</p>`,
  );
}
