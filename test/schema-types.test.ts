// A request's type is its schema's: route handlers receive the type of the schema ajv checks, so the two
// cannot disagree. Each case is stated twice, to the compiler (a value of the derived type, and a value
// the schema refuses marked as a type error) and to ajv (the same values accepted and refused).
import type Koa from 'koa';
import type { AppDeps } from '../api/deps';
import type { Principal } from '../api/principal';
import { route } from '../api/route';
import { compile } from '../api/validation';
import { WalletExecute, type WalletExecuteBody } from '../schema/http/execute';
import { requestSchema, type JsonSchema, type SchemaValue } from '../schema/http/json-schema';
import { SessionParams } from '../schema/http/sessions';
import { WalletCreate, WalletListQuery } from '../schema/http/wallets';

/** True only when A and B are the same type (not merely assignable one way). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** Runs a request schema's validator on a copy, as the router does; answers the copy as ajv left it. */
function validated(schema: JsonSchema, value: object, from: 'body' | 'text' = 'body') {
  const copy: Record<string, unknown> = structuredClone({ ...value });
  return { ok: compile(requestSchema(schema), from)(copy), value: copy };
}

const execute: WalletExecuteBody = {
  amount: 12.5,
  currency: 'BRL',
  target_currency: 'USD',
  recipient: 'pix:ana@example.com',
  description: 'Lunch',
  mandate_id: 'mdt_1',
};

describe('schema-derived request types', () => {
  it("takes an enum's values, not any string (WalletExecute.target_currency)", () => {
    const targetCurrency: Equal<
      WalletExecuteBody['target_currency'],
      'USD' | 'EUR' | 'BRL' | 'MXN' | undefined
    > = true;
    expect(targetCurrency).toBe(true);
    expect(validated(WalletExecute, execute).ok).toBe(true);

    // @ts-expect-error: JPY is not among the schema's target currencies
    const outside: WalletExecuteBody = { ...execute, target_currency: 'JPY' };
    expect(validated(WalletExecute, outside).ok).toBe(false);
    // @ts-expect-error: the schema requires a recipient
    const noRecipient: WalletExecuteBody = { ...execute, recipient: undefined };
    expect(validated(WalletExecute, noRecipient).ok).toBe(false);
  });

  it('makes a defaulted property present, as validation fills it in', () => {
    const limit: Equal<SchemaValue<typeof WalletListQuery>['limit'], number> = true;
    expect(limit).toBe(true);
    const query = validated(WalletListQuery, {}, 'text');
    expect(query).toEqual({ ok: true, value: { limit: 50 } });
  });

  it("types a route's handler from the schemas it declares and the names in its path", async () => {
    const declared = route({
      method: 'post',
      path: '/v1/wallets/:id/entries/:entryId',
      auth: 'key',
      scope: 'unmapped',
      operationId: 'typedRoute',
      summary: 'A route whose handler is typed by its declaration',
      tags: [],
      body: WalletCreate,
      query: WalletListQuery,
      responses: {},
      handler({ body, query, params }) {
        const types: [
          Equal<typeof body, SchemaValue<typeof WalletCreate>>,
          Equal<typeof query, SchemaValue<typeof WalletListQuery>>,
          Equal<typeof params, { id: string; entryId: string }>,
        ] = [true, true, true];
        return { body: { types, currency: body.currency, limit: query.limit, entry: params.entryId } };
      },
    });
    const withParamsSchema = route({
      method: 'get',
      path: '/v1/sessions/:id',
      auth: 'key',
      scope: 'unmapped',
      operationId: 'typedParams',
      summary: 'A route whose params have their own schema',
      tags: [],
      params: SessionParams,
      responses: {},
      handler({ body, params }) {
        const types: [Equal<typeof body, undefined>, Equal<(typeof params)['id'], string>] = [true, true];
        return { body: { types, id: params.id } };
      },
    });

    const body = validated(WalletCreate, { display_name: 'Ops', currency: 'USDC' });
    const query = validated(WalletListQuery, { limit: '2' }, 'text');
    expect([body.ok, query.ok]).toEqual([true, true]);
    const input = {
      body: body.value as SchemaValue<typeof WalletCreate>,
      query: query.value as SchemaValue<typeof WalletListQuery>,
      params: { id: 'wal_1', entryId: '7' },
      principal: {} as Principal,
      requestId: 'req_1',
      deps: {} as AppDeps,
      ctx: {} as Koa.Context,
    };
    expect(await declared.handler(input)).toEqual({
      body: { types: [true, true, true], currency: 'USDC', limit: 2, entry: '7' },
    });
    expect(
      await withParamsSchema.handler({ ...input, body: undefined, query: {}, params: { id: 'ses_1' } }),
    ).toEqual({ body: { types: [true, true], id: 'ses_1' } });
  });
});
