// Mock of the public Swagger Petstore 3.0 (petstore3.swagger.io): serves its OpenAPI document at
// `/api/v3/openapi.json` (fixtures/petstore-openapi.json, servers `/api/v3`) and the document's paths
// from an in-memory store. The pet and inventory routes want the `api_key` header the document declares
// (the public sandbox's demo key, `special-key`); a missing or wrong one is 401 in its words.
import type { IncomingMessage, ServerResponse } from 'node:http';
import petstoreDocument from './fixtures/petstore-openapi.json';
import { listen, readJson, sendJson } from './http-kit';
import type { RunningMock } from './running-mock';

export const PETSTORE_API_KEY = 'special-key';
export const PETSTORE_DOCUMENT = petstoreDocument;

export interface PetstoreMock extends RunningMock {
  /** The API key header of every request, in order (undefined when absent): what the gateway injected. */
  apiKeys: Array<string | undefined>;
}

type Pet = { id: number; name: string; status?: string; photoUrls: string[]; [key: string]: unknown };

const seedPets = (): Map<number, Pet> =>
  new Map(
    [
      { id: 1, name: 'Rex', status: 'available', photoUrls: [] },
      { id: 2, name: 'Tom', status: 'pending', photoUrls: [] },
      { id: 3, name: 'Nemo', status: 'sold', photoUrls: [] },
    ].map((pet) => [pet.id, pet]),
  );

export async function startPetstoreMock(): Promise<PetstoreMock> {
  const document = JSON.stringify(petstoreDocument);
  const pets = seedPets();
  const orders = new Map<number, Record<string, unknown>>();
  const apiKeys: Array<string | undefined> = [];

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://petstore.local');
    const route = url.pathname.replace(/^\/api\/v3/, '');
    const method = req.method ?? 'GET';
    if (route === '/openapi.json' && method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(document);
      return;
    }
    const key = req.headers.api_key as string | undefined;
    apiKeys.push(key);
    if (route.startsWith('/pet') || route === '/store/inventory') {
      if (key !== PETSTORE_API_KEY)
        return sendJson(res, 401, {
          code: 401,
          message: key ? 'Invalid api_key' : 'api_key header required',
        });
    }
    const petId = /^\/pet\/(\d+)$/.exec(route)?.[1];
    if (route === '/pet/findByStatus' && method === 'GET') {
      const wanted = url.searchParams.getAll('status');
      return sendJson(
        res,
        200,
        [...pets.values()].filter((pet) => wanted.includes(pet.status ?? '')),
      );
    }
    if (route === '/pet' && (method === 'POST' || method === 'PUT')) {
      const body = await readJson(req);
      if (typeof body.name !== 'string')
        return sendJson(res, 422, { code: 422, message: 'name is required' });
      const id = typeof body.id === 'number' ? body.id : Math.max(0, ...pets.keys()) + 1;
      if (method === 'PUT' && !pets.has(id))
        return sendJson(res, 404, { code: 404, message: 'Pet not found' });
      const pet: Pet = { photoUrls: [], ...body, name: body.name, id };
      pets.set(id, pet);
      return sendJson(res, 200, pet);
    }
    if (petId && method === 'GET') {
      const pet = pets.get(Number(petId));
      return pet ? sendJson(res, 200, pet) : sendJson(res, 404, { code: 404, message: 'Pet not found' });
    }
    if (petId && method === 'DELETE') {
      pets.delete(Number(petId));
      res.writeHead(200).end();
      return;
    }
    if (route === '/store/inventory' && method === 'GET') {
      const inventory: Record<string, number> = {};
      for (const pet of pets.values())
        inventory[pet.status ?? 'unknown'] = (inventory[pet.status ?? 'unknown'] ?? 0) + 1;
      return sendJson(res, 200, inventory);
    }
    if (route === '/store/order' && method === 'POST') {
      const body = await readJson(req);
      const id = typeof body.id === 'number' ? body.id : orders.size + 1;
      const order = { status: 'placed', complete: false, ...body, id };
      orders.set(id, order);
      return sendJson(res, 200, order);
    }
    const orderId = /^\/store\/order\/(\d+)$/.exec(route)?.[1];
    if (orderId && method === 'GET') {
      const order = orders.get(Number(orderId));
      return order
        ? sendJson(res, 200, order)
        : sendJson(res, 404, { code: 404, message: 'Order not found' });
    }
    if (route === '/user/logout' && method === 'GET') return sendJson(res, 200, 'User logged out');
    sendJson(res, 404, { code: 404, message: `No route ${method} ${route}` });
  }

  const server = await listen((req, res) => void handle(req, res));
  return { ...server, apiKeys };
}
