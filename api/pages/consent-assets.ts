// The consent page's script and style, served from the gateway itself (no CDN; the CSP allows only 'self').
export const CONSENT_SCRIPT = `(function () {
  'use strict';
  var form = document.getElementById('consent-form');
  var result = document.getElementById('result');
  if (!form || !result) return;

  function show(className, title, lines) {
    result.className = className;
    result.textContent = '';
    var heading = document.createElement('h2');
    heading.textContent = title;
    result.appendChild(heading);
    lines.forEach(function (line) {
      var p = document.createElement('p');
      if (typeof line === 'string') p.textContent = line; else p.appendChild(line);
      result.appendChild(p);
    });
  }

  function withMandate(url, mandateId) {
    var target = new URL(url);
    target.searchParams.set('mandate_id', mandateId);
    return target.toString();
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    if (!form.elements.agree.checked) {
      show('error', 'Please confirm', ['Tick the box to authorize, or close this page to decline.']);
      return;
    }
    var button = document.getElementById('authorize');
    button.disabled = true;
    var body = { rail: 'pix-consent' };
    var label = form.elements.display_label.value.trim();
    if (label) body.display_label = label;
    var consumer = new URLSearchParams(window.location.search).get('consumer_id');
    if (consumer) body.consumer_id = consumer;
    fetch(form.getAttribute('data-submit-url'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'X-Consent-Csrf': form.getAttribute('data-csrf') },
      body: JSON.stringify(body),
      credentials: 'omit',
      mode: 'same-origin',
      referrerPolicy: 'no-referrer'
    }).then(function (response) {
      return response.json().then(function (json) { return { status: response.status, body: json }; });
    }).then(function (answer) {
      if (answer.status === 201) {
        form.hidden = true;
        var lines = ['Mandate ' + answer.body.mandate_id + ' is active until ' + answer.body.expires_at + '.'];
        if (answer.body.callback_url) {
          var link = document.createElement('a');
          link.id = 'continue';
          link.href = withMandate(answer.body.callback_url, answer.body.mandate_id);
          link.textContent = 'Continue';
          lines.push(link);
        }
        show('success', 'Authorized', lines);
        result.setAttribute('data-mandate-id', answer.body.mandate_id);
      } else {
        button.disabled = false;
        var message = answer.body && answer.body.error ? answer.body.error.message : 'Something went wrong.';
        show('error', 'Not authorized', [message]);
        result.setAttribute('data-error-code', answer.body && answer.body.error ? answer.body.error.code : 'unknown');
      }
    }).catch(function () {
      button.disabled = false;
      show('error', 'Not authorized', ['The network failed; try again.']);
    });
  });
})();
`;

export const CONSENT_STYLE = `:root { color-scheme: light dark; font-family: system-ui, sans-serif; }
body { margin: 0; padding: 2rem 1rem; }
[hidden] { display: none !important; }
main { max-width: 36rem; margin: 0 auto; }
h1 { font-size: 1.5rem; margin: 0 0 .5rem; }
.lead { font-size: 1.05rem; }
.note { border-left: 3px solid #888; padding-left: .75rem; }
.muted { color: #777; font-size: .9rem; }
table { width: 100%; border-collapse: collapse; margin: 1rem 0; }
th, td { text-align: left; vertical-align: top; padding: .5rem .25rem; border-bottom: 1px solid #8884; }
th { width: 40%; font-weight: 600; }
ul { margin: 0; padding-left: 1.1rem; }
form { display: grid; gap: .6rem; margin-top: 1rem; }
input[type=text], input:not([type]) { padding: .5rem; font-size: 1rem; }
.check { display: flex; gap: .5rem; align-items: flex-start; }
button { padding: .75rem; font-size: 1rem; font-weight: 600; cursor: pointer; }
.success { color: #0a7a2f; }
.error { color: #b00020; }
`;
