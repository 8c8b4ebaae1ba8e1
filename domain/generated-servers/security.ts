// A document's `securitySchemes` mapped onto the gateway's auth types: an API key in a header is
// `api_key` (an HTTP bearer token too, in `authorization`), two header keys required together are
// `two_header`, mutual TLS is `cert`, no security at all is `none`. The gateway injects credentials into
// headers or the TLS handshake only, so keys in a query or cookie, HTTP basic, OAuth 2 and OpenID Connect
// are refused with 422 `unsupported_security_scheme` when nothing else would authenticate the calls.
import type { AuthType } from '../../contracts/provider-auth-types';
import { ApiError } from '../errors';
import type { CatalogField } from '../providers/catalog';
import { deref, isObject, refuseDocument, type JsonObject, type OpenApiDocument } from './document';

export interface GeneratedAuth {
  auth_type: AuthType;
  /** The scheme (or the two schemes of `two_header`) the credential answers; null for `none`. */
  schemes: string[];
  fields: CatalogField[];
}

interface DeclaredScheme {
  name: string;
  scheme: JsonObject;
}

function describeScheme({ name, scheme }: DeclaredScheme): Record<string, unknown> {
  return {
    name,
    type: typeof scheme.type === 'string' ? scheme.type : null,
    ...(typeof scheme.in === 'string' ? { in: scheme.in } : {}),
    ...(typeof scheme.scheme === 'string' ? { scheme: scheme.scheme } : {}),
  };
}

const headerKey = (s: JsonObject) => s.type === 'apiKey' && s.in === 'header' && typeof s.name === 'string';
const bearer = (s: JsonObject) =>
  s.type === 'http' && typeof s.scheme === 'string' && s.scheme.toLowerCase() === 'bearer';

/** The auth of one requirement (all its schemes together), or null when the gateway cannot send it. */
function authOfRequirement(schemes: DeclaredScheme[]): GeneratedAuth | null {
  if (schemes.length === 1) {
    const [{ name, scheme }] = schemes;
    if (headerKey(scheme)) {
      const header = (scheme.name as string).toLowerCase();
      return {
        auth_type: 'api_key',
        schemes: [name],
        fields: [
          {
            name: 'api_key',
            kind: 'api_key',
            label: `API key (the ${scheme.name as string} header)`,
            header_name: header,
          },
        ],
      };
    }
    if (bearer(scheme))
      return {
        auth_type: 'api_key',
        schemes: [name],
        fields: [{ name: 'api_key', kind: 'api_key', label: 'Bearer token', header_name: 'authorization' }],
      };
    if (scheme.type === 'mutualTLS')
      return {
        auth_type: 'cert',
        schemes: [name],
        fields: [
          { name: 'certificate', kind: 'certificate', label: 'Client certificate (PEM)', header_name: null },
          {
            name: 'private_key',
            kind: 'private_key',
            label: 'Certificate private key (PEM)',
            header_name: null,
          },
        ],
      };
  }
  if (schemes.length === 2 && schemes.every((s) => headerKey(s.scheme))) {
    const [first, second] = schemes.map((s) => (s.scheme.name as string).toLowerCase());
    if (first === second) return null;
    return {
      auth_type: 'two_header',
      schemes: schemes.map((s) => s.name),
      fields: [
        {
          name: 'client_id',
          kind: 'client_id',
          label: `The ${schemes[0].scheme.name as string} header`,
          header_name: first,
        },
        {
          name: 'client_secret',
          kind: 'client_secret',
          label: `The ${schemes[1].scheme.name as string} header`,
          header_name: second,
        },
      ],
    };
  }
  return null;
}

/** Security requirements in document order: the top level's, then each operation's. */
function requirementsOf(doc: OpenApiDocument, operations: JsonObject[]): string[][] {
  const out: string[][] = [];
  for (const list of [doc.root.security, ...operations.map((op) => op.security)])
    if (Array.isArray(list)) for (const req of list) if (isObject(req)) out.push(Object.keys(req));
  return out;
}

/**
 * The server's auth: the scheme `chosen` names, or the first requirement (in document order) the gateway
 * can send; `none` when the document requires nothing. `operations` are the document's operation objects.
 */
export function authOf(doc: OpenApiDocument, operations: JsonObject[], chosen?: string): GeneratedAuth {
  const components = isObject(doc.root.components) ? doc.root.components : {};
  const declaredMap = isObject(components.securitySchemes) ? components.securitySchemes : {};
  const declared = new Map<string, DeclaredScheme>();
  for (const [name, raw] of Object.entries(declaredMap)) {
    const scheme = deref(doc, raw, `/components/securitySchemes/${name}`);
    if (scheme) declared.set(name, { name, scheme });
  }
  if (chosen !== undefined) {
    const one = declared.get(chosen);
    if (!one)
      throw refuseDocument(
        'unknown_security_scheme',
        `The document declares no security scheme "${chosen}"`,
        {
          declared: [...declared.keys()],
        },
      );
    const auth = authOfRequirement([one]);
    if (!auth) throw unsupported([one]);
    return auth;
  }
  const requirements = requirementsOf(doc, operations).filter((req) => req.length > 0);
  const unknown = requirements.flat().find((name) => !declared.has(name));
  if (unknown)
    throw refuseDocument(
      'unknown_security_scheme',
      `A security requirement names "${unknown}", which is not declared`,
      {
        declared: [...declared.keys()],
      },
    );
  for (const req of requirements) {
    const auth = authOfRequirement(req.map((name) => declared.get(name)!));
    if (auth) return auth;
  }
  if (requirements.length === 0) return { auth_type: 'none', schemes: [], fields: [] };
  throw unsupported([...new Set(requirements.flat())].map((name) => declared.get(name)!));
}

function unsupported(schemes: DeclaredScheme[]): ApiError {
  return new ApiError(
    422,
    'unsupported_security_scheme',
    `The gateway cannot authenticate with ${schemes.map((s) => `"${s.name}"`).join(', ')}: it sends an API key or bearer token in a header, two header keys, or a client certificate`,
    {
      schemes: schemes.map(describeScheme),
      supported: ['apiKey in header', 'http bearer', 'two apiKey headers together', 'mutualTLS'],
    },
  );
}

/** The parameters the credential fills (`header:api_key`), which are therefore never a tool's arguments. */
export function credentialParams(auth: GeneratedAuth): Set<string> {
  return new Set(auth.fields.filter((f) => f.header_name).map((f) => `header:${f.header_name!}`));
}
