// The pure rules of generated servers: tool names, how a call's arguments become the operation's request,
// and, over randomly damaged Petstore documents, that generation either makes usable tools or refuses
// with a 4xx naming why, never anything else.
import { ApiError } from '../domain/errors';
import { readDocument } from '../domain/generated-servers/document';
import { generateDraft } from '../domain/generated-servers/generate';
import { snakeName, type GeneratedOperation } from '../domain/generated-servers/operations';
import { PETSTORE_DOCUMENT } from '../providers/mocks/petstore';
import { generatedRequest } from '../providers/tools/generated-request';
import { forAll, type Random } from './support/property';

describe('tool names', () => {
  it.each([
    ['findPetsByStatus', 'find_pets_by_status'],
    ['getHTTPResponseCode', 'get_http_response_code'],
    ['create-label', 'create_label'],
    ['pets.list', 'pets_list'],
    ['123start', 'op_123start'],
    ['Ünïcode Name', 'n_code_name'],
    ['x'.repeat(80), 'x'.repeat(64)],
  ])('%s becomes %s', (operationId, name) => {
    expect(snakeName(operationId)).toBe(name);
  });
});

describe("a call's request", () => {
  const operation: GeneratedOperation = {
    method: 'POST',
    path: '/stores/{storeId}/pets/{petId}',
    params: [
      { arg: 'storeId', in: 'path', name: 'storeId' },
      { arg: 'petId', in: 'path', name: 'petId' },
      { arg: 'tags', in: 'query', name: 'tags' },
      { arg: 'filter', in: 'query', name: 'filter' },
      { arg: 'trace', in: 'header', name: 'X-Trace' },
    ],
    body: { encoding: 'json', contentType: 'application/json' },
    security: [],
  };

  it('fills path segments, repeats query arrays, sends headers and the JSON body', () => {
    const request = generatedRequest(operation, {
      storeId: 'a/b',
      petId: 7,
      tags: ['x', 'y z'],
      filter: { kind: 'dog' },
      trace: 't-1',
      body: { name: 'Rex' },
    });
    expect(request).toEqual({
      method: 'POST',
      path: '/stores/a%2Fb/pets/7?tags=x&tags=y+z&filter=%7B%22kind%22%3A%22dog%22%7D',
      headers: { accept: 'application/json', 'x-trace': 't-1', 'content-type': 'application/json' },
      body: Buffer.from('{"name":"Rex"}'),
    });
  });

  it('never lets a path parameter move the path with dot segments', () => {
    expect(generatedRequest(operation, { storeId: '..', petId: '.' }).path).toBe('/stores/%2E%2E/pets/%2E');
  });

  it('encodes a form body as the operation asks', () => {
    const form = generatedRequest(
      {
        ...operation,
        params: [],
        body: { encoding: 'form', contentType: 'application/x-www-form-urlencoded' },
      },
      { body: { name: 'Rex', tags: ['a', 'b'] } },
    );
    expect([form.headers['content-type'], form.body.toString()]).toEqual([
      'application/x-www-form-urlencoded',
      'name=Rex&tags=a&tags=b',
    ]);
  });

  it('refuses a header argument holding a line break with 400, before anything is sent', () => {
    expect(() => generatedRequest(operation, { storeId: 1, petId: 2, trace: 'a\r\nInjected: 1' })).toThrow(
      expect.objectContaining({ status: 400, code: 'invalid_body' }),
    );
  });
});

/** A random JSON value of an odd kind: what a damaged document may hold anywhere. */
function oddValue(random: Random): unknown {
  return random.pick<() => unknown>([
    () => null,
    () => random.int(-5, 5),
    () => 1e308,
    () => '',
    () => '#/components/schemas/Pet',
    () => ({ $ref: random.pick(['#/components/schemas/Pet', '#/paths', '#/nowhere', 'x.yaml#/a', '#/%E0']) }),
    () => [],
    () => ({}),
    () => ({ type: random.pick(['object', 'nonsense', 7]), pattern: '(', items: [] }),
    () => 'x'.repeat(5000),
  ])();
}

/** The document with a few values somewhere inside replaced, removed or looped back. */
function damaged(random: Random): unknown {
  const copy = JSON.parse(JSON.stringify(PETSTORE_DOCUMENT)) as Record<string, unknown>;
  for (let edits = random.int(1, 4); edits > 0; edits--) {
    let node: unknown = copy;
    for (let depth = random.int(0, 7); depth > 0; depth--) {
      const keys = node && typeof node === 'object' ? Object.keys(node) : [];
      const next = keys.length > 0 ? (node as Record<string, unknown>)[random.pick(keys)] : undefined;
      if (!next || typeof next !== 'object') break;
      node = next;
    }
    if (!node || typeof node !== 'object') continue;
    const keys = Object.keys(node);
    const key = keys.length > 0 && random.bool() ? random.pick(keys) : 'added';
    if (random.int(0, 4) === 0) delete (node as Record<string, unknown>)[key];
    else (node as Record<string, unknown>)[key] = oddValue(random);
  }
  return copy;
}

it('makes usable tools of a damaged document or refuses it with a 4xx, never anything else', () => {
  let made = 0;
  forAll('damaged Petstore documents', 400, (random) => {
    try {
      const draft = generateDraft(readDocument(damaged(random)), {});
      made++;
      expect(draft.tools.length).toBeGreaterThan(0);
      for (const tool of draft.tools) expect(tool.name).toMatch(/^[a-z][a-z0-9_]{0,63}$/);
      expect(() => JSON.stringify(draft)).not.toThrow();
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      expect([error.status, error.code]).toEqual([
        422,
        expect.stringMatching(/^(invalid_document|unsupported_security_scheme)$/),
      ]);
    }
  });
  // Most damage still leaves a document worth serving: refusal is for what cannot be made into tools.
  expect(made).toBeGreaterThan(100);
});
