// Headers of a deprecated operation (RFC 9745 `Deprecation`, RFC 8288 `Link`): since when it is
// deprecated, and where the deprecation is described. The spec names no replacement for these
// operations, so the link points at the description document, which marks them `deprecated`.
const DEPRECATED_AT = Date.UTC(2026, 0, 1) / 1000;

export const DEPRECATION_HEADERS: Readonly<Record<string, string>> = {
  Deprecation: `@${DEPRECATED_AT}`,
  Link: '</v1/openapi.json>; rel="deprecation"; type="application/json"',
};
