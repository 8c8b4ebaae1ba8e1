// Gives every request an id, echoed in X-Request-Id and in every error body. A well-formed incoming
// X-Request-Id (from a proxy that already assigned one) is kept so logs join up across hops.
import type Koa from 'koa';
import { sortableId } from '../../domain/ids';

const ACCEPTED = /^[A-Za-z0-9_.:-]{8,128}$/;

export function requestId(): Koa.Middleware {
  // Not async: it only hands on next()'s promise, so a request pays for no promise of its own here.
  return (ctx, next) => {
    const incoming = ctx.get('X-Request-Id');
    const id = ACCEPTED.test(incoming) ? incoming : sortableId('req');
    ctx.state.requestId = id;
    ctx.set('X-Request-Id', id);
    return next();
  };
}
