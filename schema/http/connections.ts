// Provider connections: create, rotate and list inputs (validated) and the connection shape (documented).
// A connection never carries its secret: only the names of the stored credential fields.
import { Nullable, type JsonSchema } from './json-schema';
import { Timestamp } from './common';
import { AUTH_TYPES } from '../../contracts/provider-auth-types';

// Control characters (NUL above all, which PostgreSQL text refuses) have no place in a label.
export const Label = {
  type: 'string',
  minLength: 1,
  maxLength: 120,
  pattern: '^[^\\u0000-\\u001f\\u007f]+$',
} as const satisfies JsonSchema;

const Credentials = {
  type: 'object',
  maxProperties: 20,
  additionalProperties: { type: 'string', maxLength: 16384 },
  propertyNames: { pattern: '^[a-z][a-z0-9_]{0,63}$' },
  description:
    "The credential fields the server's auth schema lists, by name. Stored sealed; never returned.",
} as const satisfies JsonSchema;

export const ConnectionCreate = {
  type: 'object',
  required: ['credentials'],
  additionalProperties: false,
  properties: { label: Label, credentials: Credentials },
} as const satisfies JsonSchema;

export const ConnectionRotate = {
  type: 'object',
  required: ['credentials'],
  additionalProperties: false,
  properties: { credentials: Credentials },
} as const satisfies JsonSchema;

export const ConnectionListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { provider: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{1,63}$' } },
} as const satisfies JsonSchema;

export const ConnectionIdParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,200}$' } },
} as const satisfies JsonSchema;

export const Connection = {
  type: 'object',
  required: [
    'id',
    'object',
    'provider',
    'auth_type',
    'environment',
    'label',
    'status',
    'status_reason',
    'rail',
    'credential_fields',
    'settings',
    'created_at',
    'updated_at',
    'rotated_at',
    'last_verified_at',
  ],
  properties: {
    id: { type: 'string', pattern: '^conn_' },
    object: { const: 'connection' },
    provider: { type: 'string' },
    auth_type: Nullable({ enum: [...AUTH_TYPES] }),
    environment: Nullable({ enum: ['live', 'test'] }),
    label: Nullable({ type: 'string' }),
    status: {
      enum: ['active', 'inactive', 'error'],
      description: '`error`: the provider refused the stored credential at the last verification.',
    },
    status_reason: Nullable({ type: 'string' }),
    rail: Nullable({ type: 'string' }),
    credential_fields: {
      type: 'array',
      items: { type: 'string' },
      description: 'Names of the stored (sealed) fields; values are never returned.',
    },
    settings: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: 'Plain settings such as a receiving wallet address.',
    },
    created_at: Timestamp,
    updated_at: Timestamp,
    rotated_at: Nullable(Timestamp),
    last_verified_at: Nullable(Timestamp),
  },
} as const satisfies JsonSchema;

export const ConnectionList = {
  type: 'object',
  required: ['connections'],
  properties: { connections: { type: 'array', items: Connection } },
} as const satisfies JsonSchema;
export const ConnectionDeleted = {
  type: 'object',
  required: ['id', 'deleted'],
  properties: { id: { type: 'string' }, deleted: { const: true } },
} as const satisfies JsonSchema;
