// What every server-rendered page shares: escaping and the document shell (no external assets beyond
// what a page names in `head`, never indexed).

export function escapeHtml(value: unknown): string {
  return String(value).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

export interface PageParts {
  title: string;
  /** Markup for <head> after the title: an inline <style> or a stylesheet link. */
  head: string;
  /** Markup before <main>, e.g. a site header. */
  header?: string;
  content: string;
  /** Markup after </main>, e.g. a script tag. */
  tail?: string;
}

export function htmlPage(parts: PageParts): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(parts.title)}</title>
${parts.head}
</head>
<body>
${parts.header ?? ''}<main>
${parts.content}
</main>
${parts.tail ?? ''}</body>
</html>`;
}
