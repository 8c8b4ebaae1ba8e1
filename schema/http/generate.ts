// Generated tool servers: the listing's response.
import type { JsonSchema } from './json-schema';
import { Timestamp } from './common';

export const GeneratedServer = {
  type: 'object',
  required: ['id', 'name', 'version', 'description', 'status', 'tool_count', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    version: { type: 'string' },
    description: { type: ['string', 'null'] },
    status: { enum: ['draft', 'published', 'archived'] },
    tool_count: { type: 'integer', minimum: 0 },
    created_at: Timestamp,
    updated_at: Timestamp,
  },
} as const satisfies JsonSchema;

export const GeneratedServerList = {
  type: 'object',
  required: ['servers'],
  properties: { servers: { type: 'array', items: GeneratedServer } },
} as const satisfies JsonSchema;
