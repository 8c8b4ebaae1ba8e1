// The operator console's page frame and headers: server-rendered HTML with every value escaped, no
// script, no external asset, its one style pinned by hash in a CSP that also forbids framing and
// posting forms anywhere but back to the gateway.
import { createHash } from 'node:crypto';
import type { Reply } from '../route';
import { escapeHtml, htmlPage } from './html';

export { escapeHtml };

const STYLE = `
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;background:#f4f5f7;color:#1d2330;margin:0}
header{display:flex;justify-content:space-between;align-items:center;background:#1d2330;color:#fff;padding:.6rem 1.5rem}
header form{margin:0}main{max-width:72rem;margin:1.5rem auto;padding:0 1rem}
section{background:#fff;border-radius:10px;padding:1rem 1.25rem;margin-bottom:1.25rem;box-shadow:0 1px 6px rgba(0,0,0,.06)}
h1{font-size:1.2rem;margin:0}h2{font-size:1.05rem;margin:0 0 .6rem}
table{border-collapse:collapse;width:100%;font-size:.9rem}th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #e4e6eb;vertical-align:top}
code{font-size:.85rem;background:#f0f1f4;padding:0 .2rem;border-radius:4px;word-break:break-all}
.muted{color:#5b6475}.error{background:#fdecec;border:1px solid #e39a9a;border-radius:8px;padding:.6rem .8rem;color:#8a1c1c}
.notice{background:#eaf6ec;border:1px solid #8cc79a;border-radius:8px;padding:.6rem .8rem}
input[type=text],input[type=password]{font:inherit;padding:.35rem .5rem;border:1px solid #b9bfcc;border-radius:6px}
button{font:inherit;padding:.3rem .8rem;border-radius:6px;border:1px solid #b9bfcc;background:#fff;cursor:pointer}
button.primary{background:#2451d6;border-color:#2451d6;color:#fff}.login{max-width:28rem}.login label{display:block;font-weight:600;margin:.9rem 0 .3rem}
.login input{box-sizing:border-box;width:100%}
`;
const STYLE_HASH = `sha256-${createHash('sha256').update(STYLE).digest('base64')}`;

export const CONSOLE_HEADERS: Record<string, string> = {
  'Content-Security-Policy': `default-src 'none'; style-src '${STYLE_HASH}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

export function layout(
  title: string,
  content: string,
  signedIn?: { operator: string; csrf: string },
): string {
  const signOut = signedIn
    ? `<form method="post" action="/console/logout"><span id="operator">${escapeHtml(signedIn.operator)}</span>
<input type="hidden" name="csrf" value="${escapeHtml(signedIn.csrf)}"> <button type="submit" id="logout">Sign out</button></form>`
    : '';
  return htmlPage({
    title,
    head: `<style>${STYLE}</style>`,
    header: `<header><h1>Gateway operator console</h1>${signOut}</header>
`,
    content,
  });
}

export function htmlReply(status: number, body: string, headers: Record<string, string> = {}): Reply {
  return { status, body, type: 'text/html; charset=utf-8', headers: { ...CONSOLE_HEADERS, ...headers } };
}

/** A page that says one thing (a refusal, a decision's outcome) with a way back. */
export function messagePage(
  title: string,
  message: string,
  kind: 'error' | 'notice',
  signedIn?: { operator: string; csrf: string },
): string {
  const back = signedIn
    ? '<p><a href="/console" id="back">Back to the console</a></p>'
    : '<p><a href="/console/login" id="back">Sign in</a></p>';
  return layout(
    title,
    `<section><h2>${escapeHtml(title)}</h2><p class="${kind}" role="${kind === 'error' ? 'alert' : 'status'}" id="message">${escapeHtml(message)}</p>${back}</section>`,
    signedIn,
  );
}

export function loginPage(error?: string): string {
  const alert = error ? `<p class="error" role="alert" id="error">${escapeHtml(error)}</p>` : '';
  return layout(
    'Sign in: operator console',
    `<section class="login"><h2>Sign in</h2>
<p class="muted">Paste the gateway's service token. API keys and OAuth tokens are not accepted here.</p>
${alert}
<form method="post" action="/console/login">
<label for="operator">Your name (recorded on decisions)</label>
<input id="operator" name="operator" type="text" autocomplete="username" required maxlength="64">
<label for="token">Service token</label>
<input id="token" name="token" type="password" autocomplete="off" spellcheck="false" required>
<p><button type="submit" class="primary" id="sign-in">Sign in</button></p>
</form></section>`,
  );
}
