// Project slug rules: lowercase alphanumerics, `_` and `-`, at most 64 characters, `default` reserved.
import { ApiError } from '../errors';

export const SLUG_PATTERN = /^[a-z0-9_-]{1,64}$/;
const RESERVED = new Set(['default']);

export function checkSlug(slug: string): void {
  if (!SLUG_PATTERN.test(slug)) {
    throw new ApiError(400, 'slug_invalid', 'Slug must be 1 to 64 lowercase letters, digits, "_" or "-"', {
      slug,
    });
  }
  if (RESERVED.has(slug)) throw new ApiError(400, 'slug_reserved', `Slug "${slug}" is reserved`, { slug });
}
