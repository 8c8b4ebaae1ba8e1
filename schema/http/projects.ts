// Projects and their settings: request schemas (validated) and response schemas (documented).
import { SETTINGS } from '../../contracts/project-settings';
import type { Environment } from '../../contracts/environment';
import type { BuiltSchema, JsonSchema } from './json-schema';
import { Timestamp } from './common';

export const Project = {
  type: 'object',
  required: ['id', 'org_id', 'name', 'slug', 'is_default', 'environment', 'created_at'],
  properties: {
    id: { type: 'string', pattern: '^prj_[0-9A-Za-z]{16}$' },
    org_id: { type: 'string' },
    name: { type: 'string' },
    slug: { type: 'string' },
    is_default: { type: 'boolean' },
    environment: { enum: ['live', 'test'], description: 'Fixed at creation.' },
    created_at: Timestamp,
  },
} as const satisfies JsonSchema;

const settingProperties: Record<string, BuiltSchema> = Object.fromEntries(
  Object.entries(SETTINGS).map(([key, spec]) => {
    const base: BuiltSchema =
      spec.type === 'integer'
        ? { type: 'integer', minimum: spec.min, maximum: spec.max }
        : spec.type === 'boolean'
          ? { type: 'boolean' }
          : { type: 'string', enum: [...spec.enum] };
    return [key, { ...base, default: spec.default, description: spec.description }];
  }),
);

/** Settings as documented; values are checked key by key so a refusal names the key in details.key. */
export const ProjectSettings = {
  type: 'object',
  properties: settingProperties,
  additionalProperties: false,
} as const satisfies JsonSchema;

const settingsPatchProperties: Record<string, BuiltSchema> = Object.fromEntries(
  Object.entries(settingProperties).map(([key, schema]) => [key, { anyOf: [schema, { type: 'null' }] }]),
);
export const ProjectSettingsPatch = {
  type: 'object',
  description:
    'Keys to change; `null` returns a key to its default. Unknown keys are refused with details.key.',
  properties: settingsPatchProperties,
  additionalProperties: false,
  minProperties: 1,
  'x-error-key': true,
} as const satisfies JsonSchema;

export const ProjectCreate = {
  type: 'object',
  required: ['name', 'slug'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 128 },
    slug: {
      type: 'string',
      minLength: 1,
      maxLength: 64,
      description: 'Lowercase letters, digits, `_` and `-`; `default` is reserved.',
    },
    environment: { enum: ['live', 'test'], description: "Defaults to the calling key's environment." },
    settings: ProjectSettings,
  },
  'x-error-key': 'settings',
} as const satisfies JsonSchema;

export const ProjectUpdate = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 128 },
    slug: { type: 'string', minLength: 1, maxLength: 64 },
    is_default: {
      type: 'boolean',
      description: 'Only `true` has an effect: the previous default is demoted in the same transaction.',
    },
  },
} as const satisfies JsonSchema;

export const ProjectListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    is_default: { type: 'boolean' },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
    offset: { type: 'integer', minimum: 0, default: 0 },
  },
} as const satisfies JsonSchema;

export const ProjectList = {
  type: 'object',
  required: ['projects', 'total', 'limit', 'offset'],
  properties: {
    projects: { type: 'array', items: Project },
    total: { type: 'integer' },
    limit: { type: 'integer' },
    offset: { type: 'integer' },
  },
} as const satisfies JsonSchema;

export const SettingsView = {
  type: 'object',
  required: ['project_id', 'settings', 'overrides'],
  properties: {
    project_id: { type: 'string' },
    settings: ProjectSettings,
    overrides: {
      type: 'object',
      additionalProperties: true,
      description: 'Only the keys set on this project.',
    },
  },
} as const satisfies JsonSchema;

export const SettingsHistory = {
  type: 'object',
  required: ['history'],
  properties: {
    history: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'changed_by', 'changes', 'changed_at'],
        properties: {
          id: { type: 'string' },
          changed_by: { type: 'string', description: '`key:<id>`, `oauth:<id>`, `user:<id>` or `service`.' },
          changes: {
            type: 'object',
            additionalProperties: { type: 'object', properties: { from: {}, to: {} } },
          },
          changed_at: Timestamp,
        },
      },
    },
  },
} as const satisfies JsonSchema;

export const HistoryQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 } },
} as const satisfies JsonSchema;

export const MemberWrite = {
  type: 'object',
  required: ['user_id', 'role'],
  additionalProperties: false,
  properties: { user_id: { type: 'string', minLength: 1 }, role: { enum: ['admin', 'member'] } },
} as const satisfies JsonSchema;
export const MemberPatch = {
  type: 'object',
  required: ['role'],
  additionalProperties: false,
  properties: { role: { enum: ['admin', 'member'] } },
} as const satisfies JsonSchema;
