// `cert`: mutual TLS with the account's client certificate; nothing goes in the headers.
import type { Injector } from './request';

export const injectCert: Injector = (request, credential) => ({
  ...request,
  tls: { ...request.tls, cert: credential.certificate, key: credential.private_key },
});
