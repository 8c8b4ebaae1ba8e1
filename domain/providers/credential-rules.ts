// What a project may store for a server: which fields exist and are theirs to fill, the path secrets a
// path_secret server needs, each value's shape, and what a certificate or signing key must be. Refusals
// name fields, never values.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { ApiError } from '../errors';
import type { Environment } from '../tenancy/api-key-format';
import { userFields, type CatalogServer } from './catalog';

export interface CheckedCredential {
  /** Sealed in the vault. */
  secrets: Record<string, string>;
  /** Plain settings (a wallet address), kept readable. */
  settings: Record<string, string>;
}

const refuse = (code: string, message: string, details: Record<string, unknown>) =>
  new ApiError(400, code, message, details);

export function checkCredential(
  server: CatalogServer,
  environment: Environment,
  given: Record<string, string>,
): CheckedCredential {
  if (server.auth_type === 'oauth') {
    throw refuse(
      'not_api_key_server',
      `${server.id} connects through its OAuth authorization flow, not a pasted credential`,
      { server_id: server.id, auth_type: 'oauth' },
    );
  }
  const fields = userFields(server);
  if (fields.length === 0)
    throw refuse('no_user_fields', `${server.id} takes no credentials; nothing to store`, {
      server_id: server.id,
      auth_type: server.auth_type,
    });

  const known = new Set(fields.map((f) => f.name));
  const foreign = Object.keys(given)
    .filter((name) => !known.has(name))
    .sort();
  if (foreign.length) {
    throw refuse('fields_not_user_editable', 'These fields are not credential fields of the server', {
      fields: foreign,
      editable: [...known],
    });
  }

  if (server.auth_type === 'path_secret') {
    const expected = fields
      .filter((f) => f.kind === 'path_secret')
      .map((f) => f.name)
      .sort();
    const got = Object.keys(given)
      .filter((name) => fields.find((f) => f.name === name)?.kind === 'path_secret')
      .sort();
    if (expected.join() !== got.join()) {
      throw refuse('path_secret_keys_mismatch', `The path needs exactly ${expected.join(', ')}`, {
        expected,
        received: got,
      });
    }
  }

  const missing = fields
    .filter((f) => !f.optional && (given[f.name] === undefined || given[f.name] === ''))
    .map((f) => f.name);
  if (missing.length)
    throw refuse('credential_invalid', `Missing credential fields: ${missing.join(', ')}`, { missing });

  for (const f of fields) {
    const value = given[f.name];
    if (value === undefined) continue;
    if (f.pattern && !new RegExp(f.pattern).test(value)) {
      throw refuse(
        'invalid_secret_shape',
        `The value of ${f.name} does not have the shape ${server.name} issues (${f.label})`,
        { field: f.name },
      );
    }
  }

  if (server.auth_type === 'cert') checkCertificate(server, environment, given);
  if (server.auth_type === 'jwt_ecdsa' || server.auth_type === 'cdp') checkSigningKey(given.private_key);

  const secrets: Record<string, string> = {};
  const settings: Record<string, string> = {};
  for (const f of fields) {
    if (given[f.name] === undefined) continue;
    (f.secret === false ? settings : secrets)[f.name] = given[f.name];
  }
  return { secrets, settings };
}

function checkCertificate(
  server: CatalogServer,
  environment: Environment,
  given: Record<string, string>,
): void {
  // A client certificate is issued to the account's tax id by the live provider; a sandbox has none.
  if (environment === 'test') {
    throw refuse(
      'credential_invalid',
      `${server.name} needs a client certificate issued to the account's tax id, so it cannot be used with a test key`,
      { reason: 'certificate_needs_live_key' },
    );
  }
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(given.certificate);
  } catch {
    throw refuse('invalid_secret_shape', 'The certificate is not a PEM X.509 certificate', {
      field: 'certificate',
    });
  }
  let matches = false;
  try {
    matches = certificate.checkPrivateKey(createPrivateKey(given.private_key));
  } catch {
    throw refuse('invalid_secret_shape', 'The private key is not a PEM private key', {
      field: 'private_key',
    });
  }
  if (!matches)
    throw refuse('credential_invalid', 'The private key does not belong to the certificate', {
      reason: 'key_certificate_mismatch',
    });
  if (Date.parse(certificate.validTo) < Date.now())
    throw refuse('credential_invalid', 'The certificate has expired', { reason: 'certificate_expired' });
}

function checkSigningKey(pem: string | undefined): void {
  try {
    const key = createPrivateKey(pem ?? '');
    if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return;
  } catch {
    // falls through to the refusal below
  }
  throw refuse('invalid_secret_shape', 'The private key must be a PEM EC P-256 key (ES256)', {
    field: 'private_key',
  });
}
