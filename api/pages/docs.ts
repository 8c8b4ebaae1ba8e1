// The interactive API reference at /docs: Swagger UI served from the installed package (no CDN),
// pointed at the live /openapi.json.
export function docsPage(specUrl: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Agent Payments Gateway · API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js" data-spec-url="${specUrl}"></script>
</body>
</html>`;
}

export const DOCS_INIT_SCRIPT = `(function () {
  var specUrl = document.currentScript.getAttribute('data-spec-url');
  window.reference = SwaggerUIBundle({ url: specUrl, dom_id: '#reference', deepLinking: true, persistAuthorization: true });
})();`;
