// From an OpenAPI document to a draft provider: its tools, its auth, its base URL per environment and
// the read that checks a credential. Pure: nothing is stored here, so a refused document leaves nothing.
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { randomToken } from '../ids';
import { clip, isObject, refuseDocument, type JsonObject, type OpenApiDocument } from './document';
import { toolsOf, type DraftTool } from './operations';
import { authOf, credentialParams, type GeneratedAuth } from './security';

export interface BaseUrls {
  live: string | null;
  test: string | null;
}

export interface GeneratedDraft {
  name: string;
  description: string | null;
  source: { openapi: string; title: string; document_version: string; url: string | null };
  auth: GeneratedAuth;
  baseUrls: BaseUrls;
  /** The read verify-connection makes: a GET needing no argument, under the credential when one is. */
  verify: { method: 'GET'; path: string } | null;
  tools: DraftTool[];
}

export interface GenerateOptions {
  name?: string;
  description?: string | null;
  securityScheme?: string;
  /** Where the document was fetched from: relative server URLs resolve against it. */
  documentUrl?: string;
  baseUrls?: Partial<BaseUrls>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const SANDBOX = /sandbox|staging|test|dev/i;

function operationObjects(doc: OpenApiDocument): JsonObject[] {
  const paths = isObject(doc.root.paths) ? doc.root.paths : {};
  return Object.values(paths)
    .filter(isObject)
    .flatMap((item) => METHODS.map((m) => item[m]).filter(isObject));
}

/** A server URL with its variables at their defaults, made absolute; null when it cannot be (or is not http). */
function serverUrl(server: JsonObject, documentUrl: string | undefined): string | null {
  if (typeof server.url !== 'string') return null;
  const variables = isObject(server.variables) ? server.variables : {};
  const filled = server.url.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const variable = variables[name];
    return isObject(variable) && typeof variable.default === 'string' ? variable.default : whole;
  });
  try {
    const url = documentUrl ? new URL(filled, documentUrl) : new URL(filled);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    if (/[{}]/.test(decodeURIComponent(url.href))) return null;
    return url.href.replace(/\/+$/, '');
  } catch {
    return null;
  }
}

/**
 * Base URLs from the document's `servers`: one that says sandbox, staging, test or dev (in its description
 * or host) is the test environment's, the first other one live's; a document naming only one server
 * gives it to both. What the request states wins.
 */
function baseUrlsOf(doc: OpenApiDocument, options: GenerateOptions): BaseUrls {
  const servers = (Array.isArray(doc.root.servers) ? doc.root.servers : []).filter(isObject);
  const candidates = servers
    .map((server) => ({
      url: serverUrl(server, options.documentUrl),
      sandbox:
        SANDBOX.test(typeof server.description === 'string' ? server.description : '') ||
        SANDBOX.test(typeof server.url === 'string' ? (server.url.split('/')[2] ?? '') : ''),
    }))
    .filter((c): c is { url: string; sandbox: boolean } => c.url !== null);
  // A document without servers is served from where it was fetched (OpenAPI's default is `/`).
  if (servers.length === 0 && options.documentUrl)
    candidates.push({ url: new URL('/', options.documentUrl).href.replace(/\/+$/, ''), sandbox: false });
  const sandbox = candidates.find((c) => c.sandbox)?.url ?? null;
  const live = candidates.find((c) => !c.sandbox)?.url ?? null;
  return {
    live: options.baseUrls?.live !== undefined ? options.baseUrls.live : (live ?? sandbox),
    test: options.baseUrls?.test !== undefined ? options.baseUrls.test : (sandbox ?? live),
  };
}

function verifyOf(tools: DraftTool[], auth: GeneratedAuth): GeneratedDraft['verify'] {
  const reads = tools.filter(
    (t) =>
      t.operation.method === 'GET' &&
      !(Array.isArray(t.inputSchema.required) && t.inputSchema.required.length > 0),
  );
  const secured = reads.find((t) =>
    t.operation.security.some((req) => auth.schemes.every((s) => req.includes(s)) && req.length > 0),
  );
  const chosen = auth.auth_type === 'none' ? reads[0] : (secured ?? reads[0]);
  return chosen && !chosen.operation.path.includes('{')
    ? { method: 'GET', path: chosen.operation.path }
    : null;
}

// One validator for every generation: it checks schemas against the 2020-12 meta-schema and compiles
// none of them (compiling is the tool-call path's, once per published schema).
const metaCheck = new Ajv2020({ strict: false, logger: false });
addFormats(metaCheck);

/**
 * Every tool's schema is a JSON Schema the tool-call path can compile, or the document is refused now.
 * Conversion already dropped unknown formats and patterns no Unicode expression accepts, and each
 * reference points into the schema's own `$defs`; the meta-schema catches the rest.
 */
function checkSchemas(tools: DraftTool[]): void {
  for (const tool of tools) {
    if (metaCheck.validateSchema(tool.inputSchema) === true) continue;
    const first = metaCheck.errors?.[0];
    throw refuseDocument(
      'invalid_schema',
      `The schema of ${tool.operationKey} is not a JSON Schema: ${first ? `${first.instancePath || '/'} ${first.message ?? ''}` : 'invalid'}`,
      { operation: tool.operationKey },
    );
  }
}

export function generateDraft(doc: OpenApiDocument, options: GenerateOptions): GeneratedDraft {
  const info = doc.root.info as JsonObject;
  const auth = authOf(doc, operationObjects(doc), options.securityScheme);
  const tools = toolsOf(doc, credentialParams(auth));
  checkSchemas(tools);
  const title = (info.title as string).trim() || 'Generated server';
  const described = typeof info.description === 'string' ? clip(info.description.trim(), 2000) : '';
  return {
    name: options.name ?? clip(title, 200),
    description: options.description !== undefined ? options.description : described || null,
    source: {
      openapi: doc.openapi,
      title: clip(title, 200),
      document_version: clip(info.version as string, 100),
      url: options.documentUrl ?? null,
    },
    auth,
    baseUrls: baseUrlsOf(doc, options),
    verify: verifyOf(tools, auth),
    tools,
  };
}

/** A slug for a server that names none: its title's words and a random tail, unique across accounts. */
export function slugFor(name: string): string {
  const words = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return `${words || 'server'}-${randomToken(6, '0123456789abcdefghijklmnopqrstuvwxyz')}`;
}
