// What generation makes of documents other than the Petstore, and what it refuses: YAML text, OpenAPI
// 3.1's schemas, operations without ids, the security schemes mapped onto the auth types (and those the
// gateway cannot send), and documents that are not OpenAPI, broken, too large, too deep or unreachable.
// Every refusal is a 4xx that names its reason and leaves no row behind.
import { sql } from 'slonik';
import { stringify } from 'yaml';
import { z } from 'zod';
import { PETSTORE_DOCUMENT, type PetstoreMock } from '../providers/mocks/petstore';
import { startGateway, type Gateway, type Tenant } from './support/harness';

let gw: Gateway;
let t: Tenant;
beforeAll(async () => {
  gw = await startGateway({ worker: false });
  t = await gw.createTenant();
});
afterAll(async () => gw?.stop());

const generate = (body: Record<string, unknown>, tenant = t) =>
  gw.request('POST', '/v1/generate/servers', { key: tenant.key, body });
const rows = () =>
  gw.db.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT (SELECT count(*) FROM generated_servers)::int + (SELECT count(*) FROM generated_server_tools)::int AS n`);

/** A minimal 3.1 document around the given paths and components. */
const doc = (paths: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  openapi: '3.1.0',
  info: { title: 'Shipping API', version: '2.4.0' },
  servers: [
    { url: 'https://api.shipping.example/v2' },
    { url: 'https://sandbox.shipping.example/v2', description: 'Sandbox' },
  ],
  paths,
  ...extra,
});
const quote = { get: { operationId: 'getQuote', responses: { '200': { description: 'ok' } } } };

describe('documents generation reads', () => {
  it('takes the document as YAML text and makes the same tools as from JSON', async () => {
    const res = await generate({ document: stringify(PETSTORE_DOCUMENT) });
    expect(res.status).toBe(201);
    expect(res.body.tool_count).toBe(19);
    expect(res.body.tools[4].name).toBe('get_pet_by_id');
  });

  it('names operations without an operationId by method and path, and makes repeated names unique', async () => {
    const res = await generate({
      document: doc({
        '/shipments/{shipmentId}/labels': {
          parameters: [{ name: 'shipmentId', in: 'path', required: true, schema: { type: 'string' } }],
          get: { responses: { '200': { description: 'ok' } } },
          post: { operationId: 'create-label', responses: { '200': { description: 'ok' } } },
        },
        '/labels': { post: { operationId: 'createLabel', responses: { '200': { description: 'ok' } } } },
      }),
    });
    expect(res.status).toBe(201);
    expect(
      res.body.tools.map((tool: { name: string; operation: string }) => [tool.name, tool.operation]),
    ).toEqual([
      ['get_shipments_by_shipment_id_labels', 'GET /shipments/{shipmentId}/labels'],
      ['create_label', 'POST /shipments/{shipmentId}/labels'],
      ['create_label_2', 'POST /labels'],
    ]);
    expect(res.body.tools[0].input_schema.required).toEqual(['shipmentId']);
    // Servers: the sandbox one is the test environment's, the other live's; no security means `none`.
    expect(res.body).toMatchObject({
      base_urls: { live: 'https://api.shipping.example/v2', test: 'https://sandbox.shipping.example/v2' },
      auth: { auth_type: 'none', schemes: [], fields: [] },
    });
  });

  it('turns 3.0 schemas into JSON Schema: nullable, exclusive bounds, recursive references, and drops what cannot validate', async () => {
    const res = await generate({
      document: {
        openapi: '3.0.3',
        info: { title: 'Tree', version: '1' },
        paths: {
          '/nodes': {
            post: {
              operationId: 'addNode',
              parameters: [
                {
                  name: 'depth',
                  in: 'query',
                  schema: { type: 'integer', minimum: 0, exclusiveMinimum: true },
                },
                { name: 'depth', in: 'header', schema: { type: 'string', pattern: '(?<broken' } },
              ],
              requestBody: {
                required: true,
                content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } },
              },
              responses: { '200': { description: 'ok' } },
            },
          },
        },
        components: {
          schemas: {
            Node: {
              type: 'object',
              xml: { name: 'node' },
              properties: {
                label: { type: 'string', nullable: true, format: 'made-up', example: 'root' },
                children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
              },
            },
          },
        },
      },
      base_urls: { test: 'https://tree.example' },
    });
    expect(res.status).toBe(201);
    expect(res.body.tools[0].input_schema).toEqual({
      type: 'object',
      properties: {
        depth: { type: 'integer', exclusiveMinimum: 0 },
        depth_header: { type: 'string' },
        body: { $ref: '#/$defs/Node' },
      },
      required: ['body'],
      additionalProperties: false,
      $defs: {
        Node: {
          type: 'object',
          properties: {
            label: { type: ['string', 'null'], examples: ['root'] },
            children: { type: 'array', items: { $ref: '#/$defs/Node' } },
          },
        },
      },
    });
  });

  it.each([
    [
      'a bearer token',
      { bearer: { type: 'http', scheme: 'bearer' } },
      [{ bearer: [] }],
      {
        auth_type: 'api_key',
        schemes: ['bearer'],
        fields: [expect.objectContaining({ header_name: 'authorization' })],
      },
    ],
    [
      'two header keys required together',
      {
        id: { type: 'apiKey', in: 'header', name: 'X-Client-Id' },
        secret: { type: 'apiKey', in: 'header', name: 'X-Client-Secret' },
      },
      [{ id: [], secret: [] }],
      {
        auth_type: 'two_header',
        schemes: ['id', 'secret'],
        fields: [
          expect.objectContaining({ name: 'client_id', header_name: 'x-client-id' }),
          expect.objectContaining({ name: 'client_secret', header_name: 'x-client-secret' }),
        ],
      },
    ],
    [
      'mutual TLS after an OAuth 2 scheme the gateway cannot send',
      {
        oauth: {
          type: 'oauth2',
          flows: { clientCredentials: { tokenUrl: 'https://a.example/token', scopes: {} } },
        },
        mtls: { type: 'mutualTLS' },
      },
      [{ oauth: [] }, { mtls: [] }],
      { auth_type: 'cert', schemes: ['mtls'] },
    ],
  ])('maps %s onto its auth type', async (_, schemes, security, auth) => {
    const res = await generate({
      document: doc({ '/quote': quote }, { components: { securitySchemes: schemes }, security }),
    });
    expect(res.status).toBe(201);
    expect(res.body.auth).toEqual(expect.objectContaining(auth));
  });

  it('uses the security scheme the request names', async () => {
    const res = await generate({
      document: PETSTORE_DOCUMENT,
      security_scheme: 'api_key',
      slug: 'chosen-scheme',
    });
    expect([res.status, res.body.slug, res.body.auth.schemes]).toEqual([201, 'chosen-scheme', ['api_key']]);
  });
});

describe('documents generation refuses, creating nothing', () => {
  let before: number;
  beforeEach(async () => {
    before = await rows();
  });
  afterEach(async () => {
    expect(await rows()).toBe(before);
  });

  const deep = (levels: number): string =>
    `a:\n${Array.from({ length: levels }, (_, i) => `${'  '.repeat(i + 1)}k:`).join('\n')} 1\n`;

  it.each([
    ['text that is neither JSON nor YAML', '{"openapi": "3.1.0", ', 'not_parsable'],
    [
      'a Swagger 2.0 document',
      { swagger: '2.0', info: { title: 'x', version: '1' }, paths: {} },
      'not_openapi',
    ],
    ['OpenAPI 4', { openapi: '4.0.0', info: { title: 'x', version: '1' }, paths: {} }, 'unsupported_version'],
    ['a document without info', { openapi: '3.1.0', paths: { '/a': quote } }, 'invalid_info'],
    ['a document without operations', doc({}), 'no_operations'],
    ['a path not starting with /', doc({ quote }), 'invalid_paths'],
    [
      'a reference to another file',
      doc({ '/a': { get: { ...quote.get, parameters: [{ $ref: 'other.yaml#/components/parameters/P' }] } } }),
      'external_reference',
    ],
    [
      'a reference to nothing',
      doc({ '/a': { get: { ...quote.get, parameters: [{ $ref: '#/components/parameters/Missing' }] } } }),
      'invalid_reference',
    ],
    [
      'references that loop',
      doc(
        { '/a': { get: { ...quote.get, parameters: [{ $ref: '#/components/parameters/A' }] } } },
        {
          components: {
            parameters: {
              A: { $ref: '#/components/parameters/B' },
              B: { $ref: '#/components/parameters/A' },
            },
          },
        },
      ),
      'invalid_reference',
    ],
    [
      'a parameter without a place',
      doc({ '/a': { get: { ...quote.get, parameters: [{ name: 'x', in: 'body' }] } } }),
      'invalid_parameter',
    ],
    [
      'a requirement naming an undeclared scheme',
      doc({ '/a': quote }, { security: [{ nowhere: [] }] }),
      'unknown_security_scheme',
    ],
    ['YAML nested deeper than 64 levels', deep(80), 'too_deep'],
    [
      'more than 300 operations',
      doc(Object.fromEntries(Array.from({ length: 301 }, (_, i) => [`/op${i}`, quote]))),
      'too_many_operations',
    ],
  ])('refuses %s with 422 invalid_document', async (_, document, reason) => {
    const res = await generate({ document });
    expect([res.status, res.body.error.code, res.body.error.details.reason]).toEqual([
      422,
      'invalid_document',
      reason,
    ]);
  });

  it('refuses a document whose only security the gateway cannot send, naming the schemes', async () => {
    const res = await generate({
      document: doc(
        { '/a': quote },
        {
          components: {
            securitySchemes: {
              basic: { type: 'http', scheme: 'basic' },
              query: { type: 'apiKey', in: 'query', name: 'key' },
            },
          },
          security: [{ basic: [] }, { query: [] }],
        },
      ),
    });
    expect([res.status, res.body.error.code, res.body.error.details.schemes]).toEqual([
      422,
      'unsupported_security_scheme',
      [
        { name: 'basic', type: 'http', scheme: 'basic' },
        { name: 'query', type: 'apiKey', in: 'query' },
      ],
    ]);
    const named = await generate({ document: PETSTORE_DOCUMENT, security_scheme: 'petstore_auth' });
    expect([named.status, named.body.error.code]).toEqual([422, 'unsupported_security_scheme']);
  });

  it('refuses a body with both or neither of document and document_url', async () => {
    const both = await generate({
      document: doc({ '/a': quote }),
      document_url: 'https://a.example/openapi.json',
    });
    expect([both.status, both.body.error.code]).toEqual([400, 'invalid_body']);
    const neither = await generate({ name: 'Nothing' });
    expect([neither.status, neither.body.error.code]).toEqual([400, 'invalid_body']);
  });

  it('answers 422 document_unreachable for a URL that answers no document, or that a live key may not reach', async () => {
    const petstore = gw.mocks.petstore as PetstoreMock;
    const missing = await generate({ document_url: `${petstore.url}/api/v3/nothing.json` });
    expect([missing.status, missing.body.error.code, missing.body.error.details]).toEqual([
      422,
      'document_unreachable',
      { reason: 'status', status: 404 },
    ]);
    const closed = await generate({ document_url: 'http://127.0.0.1:1/openapi.json' });
    expect([closed.status, closed.body.error.details.reason]).toEqual([422, 'unreachable']);
    const live = await gw.createTenant({ environment: 'live' });
    const privateHost = await generate({ document_url: `${petstore.url}/api/v3/openapi.json` }, live);
    expect([privateHost.status, privateHost.body.error.details.reason]).toEqual([
      422,
      'destination_forbidden',
    ]);
  });

  it('refuses a slug that a catalog server or another generated server has', async () => {
    const catalog = await generate({ document: doc({ '/a': quote }), slug: 'pix-psp' });
    expect([catalog.status, catalog.body.error.code]).toEqual([409, 'slug_conflict']);
  });
});

it('refuses a taken generated slug, whichever project holds it', async () => {
  const other = await gw.createTenant();
  const first = await generate({ document: doc({ '/a': quote }), slug: 'shipping-one' }, other);
  expect(first.status).toBe(201);
  const second = await generate({ document: doc({ '/a': quote }), slug: 'shipping-one' });
  expect([second.status, second.body.error.code]).toEqual([409, 'slug_conflict']);
});
