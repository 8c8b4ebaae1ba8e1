// Whoami and the operator-only tenancy operations (organizations, API keys, users).
import type { JsonSchema } from './json-schema';
import { Timestamp } from './common';
import { Project } from './projects';

export const Whoami = {
  type: 'object',
  required: ['key', 'organization', 'project'],
  properties: {
    key: {
      type: 'object',
      required: ['id', 'environment', 'scopes'],
      properties: {
        id: { type: ['string', 'null'], description: 'Null for the service credential.' },
        environment: { enum: ['live', 'test'] },
        scopes: { type: 'array', items: { type: 'string' } },
      },
    },
    organization: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
    project: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
    user: {
      type: 'object',
      properties: { email: { type: 'string' }, name: { type: ['string', 'null'] } },
      description: 'Display only.',
    },
  },
} as const satisfies JsonSchema;

export const OrganizationCreate = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    environment: { enum: ['live', 'test'], default: 'test' },
  },
} as const satisfies JsonSchema;
export const ApiKeyCreate = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 128 },
    scopes: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      maxItems: 32,
      description: 'Omit for an unrestricted (`*`) key.',
    },
  },
} as const satisfies JsonSchema;
export const UserCreate = {
  type: 'object',
  required: ['email', 'role'],
  additionalProperties: false,
  properties: {
    email: { type: 'string', format: 'email', maxLength: 320 },
    display_name: { type: ['string', 'null'], maxLength: 200 },
    avatar_url: { type: ['string', 'null'], format: 'uri', maxLength: 2000 },
    role: { enum: ['owner', 'admin', 'member'] },
  },
} as const satisfies JsonSchema;
