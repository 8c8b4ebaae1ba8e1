// The fixed catalog of project settings: each key's type, bounds, default and description. The settings
// area checks values against it and the projects schema documents it.

export type SettingSpec =
  | { type: 'integer'; min: number; max: number; default: number; description: string }
  | { type: 'boolean'; default: boolean; description: string }
  | { type: 'string'; enum: readonly string[]; default: string; description: string };

export const SETTINGS: Record<string, SettingSpec> = {
  approval_ttl_seconds: {
    type: 'integer',
    min: 60,
    max: 7 * 86_400,
    default: 86_400,
    description: 'How long a held call waits for a human decision before it expires.',
  },
  webhook_auto_pause_after: {
    type: 'integer',
    min: 1,
    max: 1_000,
    default: 5,
    description: 'Consecutive dead deliveries after which a webhook endpoint is paused to `error`.',
  },
  session_max_active: {
    type: 'integer',
    min: 1,
    max: 100_000,
    default: 100,
    description: 'Open sessions a project may hold at once; opening one more answers 403 `quota_exceeded`.',
  },
  session_tool_calls_per_minute: {
    type: 'integer',
    min: 1,
    max: 100_000,
    default: 600,
    description:
      'Tool calls one session may make per clock minute; the next answers 429 `rate_limited` with Retry-After.',
  },
  ted_merchant_allowlist_fallback: {
    type: 'boolean',
    default: false,
    description:
      "While on, an explicit entry in a mandate's signed merchant_allowlist also authorizes a TED destination.",
  },
  receipt_timezone: {
    type: 'string',
    enum: [
      'UTC',
      'America/Sao_Paulo',
      'America/Mexico_City',
      'America/Bogota',
      'America/Argentina/Buenos_Aires',
    ],
    default: 'UTC',
    description: 'Time zone in which receipts render their human-readable dates.',
  },
};
