// Mock provider for `path_secret`: the account id and token are the first two path segments
// (`/{account_id}/{token}/…`), with an optional `x-sender-key` companion header that must match when sent.
import { startAuthMock, type AuthMock, type InboundRequest } from './auth-mock';

export const PATH_SECRET_SANDBOX = {
  account_id: 'ACsandbox0001',
  token: 'sandboxToken00000001',
  sender_key: 'sender-acme',
};

function segments(r: InboundRequest): string[] {
  return r.url.split('?')[0].split('/').slice(1);
}

export function startPathSecretMock(): Promise<AuthMock> {
  return startAuthMock({
    credentials: PATH_SECRET_SANDBOX,
    account: { id: PATH_SECRET_SANDBOX.account_id, name: 'Acme SMS' },
    check: (r) => {
      const [account, token] = segments(r).map(decodeURIComponent);
      if (account !== PATH_SECRET_SANDBOX.account_id)
        return `Account ${account ? 'not found' : 'missing from the path'}`;
      if (token !== PATH_SECRET_SANDBOX.token) return 'Authentication token is invalid';
      const sender = r.headers['x-sender-key'];
      return sender === undefined || sender === PATH_SECRET_SANDBOX.sender_key
        ? null
        : 'Sender key does not belong to this account';
    },
    pathOf: (r) => {
      const [, query] = r.url.split('?');
      return `/${segments(r).slice(2).join('/')}${query === undefined ? '' : `?${query}`}`;
    },
  });
}
